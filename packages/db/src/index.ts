export { checkDatabase } from './database-check';
export { createDatabase, createDb, queryOnPool, type Database, type DatabaseOptions, type DatabasePooler, type Db, type SqlPool, type Tx } from './client';
export { tenantData, tenantHandles, type TenantData, type TenantTx } from './data/tenant';
export { unscopedData, type UnscopedData, type UnscopedPrismaData, type UnscopedTx } from './data/unscoped';
export type { LockableTable } from './data/connection';
export { pageSql, type PageWindow, type RowSource } from './data/listing';
export { TASK_SORT_KEYS, taskConditions, type TaskFilter, type TaskSortField } from './data/tasks';
export { PROJECT_SORT_KEYS, type ProjectSortField } from './data/projects';
export type { LabelSortField } from './data/labels';
export type { RelatedTask, RelationSortField } from './data/relations';
export type { Subtasks, TaskRow } from './data/subtasks';
export type { DeliveryLogFilters, MissedEvent } from './data/deliveries';
export type { DisabledWebhook } from './data/webhooks';
export type { EventToRecord } from './data/events';
export type { FeedEvent, FeedFilter, FeedPosition } from './data/feed';
export type { References } from './data/references';
export type { NewTask } from './data/tasks';
export type { InvitationPreview, KeyRow, NewApiKey as ApiKeyRow, SessionRow } from './data/sign-in';
export {
  claimDueDeliveries,
  countDueDeliveries,
  deleteExpiredDeliveries,
  recordAttempts,
  recordAttemptsAndClaim,
  releaseDeliveries,
  type AttemptRecord,
  type Claim,
  type ClaimedDelivery,
} from './statements/deliveries';
export { earlierUndispatchedEvents, resourceOf, undispatchedEvents, type EventToDispatch } from './statements/outbox-events';
export { fanOutEvents, type DeliveryRow } from './statements/delivery-rows';
export { deliveryWork, type DeliveryWork } from './delivery-work';
export { insertTaskWithEvent } from './data/tasks';
export { idBoundaryAt, newId, ID_PREFIXES, type IdKind } from './ids';
export type { ActingScope, Scope } from './scope';
export { Prisma } from './generated/prisma/client';
export type {
  Organization,
  User,
  Membership,
  ApiKey,
  Project,
  Task,
  Label,
  TaskRelation,
  Comment,
  File,
  Invitation,
  OutboxEvent,
  TaskActivity,
  Webhook,
  Delivery,
  DeliveryAttempt,
} from './generated/prisma/client';
export * from './generated/prisma/enums';
export { SecretBox, UnreadableSecretError, webhookHeadersContext, webhookSecretContext } from './secrets';
export { resealWebhookSecrets, type ResealReport } from './webhook-secrets';

export { createDatabase, createDb, lockScopedRow, queryOnPool, type Database, type Db, type LockableTable, type SqlPool, type Tx } from './client';
export { claimDueDeliveries, recordAttempts, type AttemptRecord, type ClaimedDelivery } from './statements/deliveries';
export { fanOutEvents, undispatchedEvents, type EventToDispatch, type NewDelivery } from './statements/outbox-events';
export { insertTaskWithEvent, type OutboxInsert } from './statements/tasks';
export { setWebhookFilterPath } from './statements/webhooks';
export { newId, ID_PREFIXES, type IdKind } from './ids';
export { scoped, type Scope } from './scope';
export { Prisma } from './generated/prisma/client';
export type {
  Organization,
  User,
  Membership,
  ApiKey,
  Project,
  Task,
  Comment,
  File,
  Invitation,
  OutboxEvent,
  Webhook,
  Delivery,
  DeliveryAttempt,
} from './generated/prisma/client';
export * from './generated/prisma/enums';
export { SecretBox, UnreadableSecretError, webhookHeadersContext, webhookSecretContext } from './secrets';
export { resealWebhookSecrets, type ResealReport } from './webhook-secrets';

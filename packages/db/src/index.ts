export { createDatabase, createDb, lockScopedRow, queryOnPool, type Database, type Db, type LockableTable, type SqlPool, type Tx } from './client';
export { deliveryLogWhere, lastAttemptOfDelivery, type DeliveryLogFilters } from './statements/delivery-log';
export { claimDueDeliveries, recordAttempts, type AttemptRecord, type ClaimedDelivery } from './statements/deliveries';
export { fanOutEvents, undispatchedEvents, type EventToDispatch, type NewDelivery } from './statements/outbox-events';
export {
  adminEmails,
  membershipsOfEmail,
  pendingInvitationByTokenHash,
  revokeInvitationsOfMember,
  revokeInvitationsTo,
  type InvitationPreview,
  type MembershipOfEmail,
} from './statements/people';
export { claimDisableNotice, disabledWebhooks, type DisabledWebhook, type DisableNotice } from './statements/webhook-notices';
export { insertTaskWithEvent, type OutboxInsert } from './statements/tasks';
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
export { SecretBox, UnreadableSecretError, webhookSecretContext } from './secrets';
export { resealWebhookSecrets, type ResealReport } from './webhook-secrets';

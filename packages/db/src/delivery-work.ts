import type { SqlPool } from './client';
import {
  claimDueDeliveries,
  deleteExpiredDeliveries,
  recordAttempts,
  recordAttemptsAndClaim,
  releaseDeliveries,
  type AttemptRecord,
  type ClaimedDelivery,
} from './statements/deliveries';
import { fanOutEvents, type DeliveryRow } from './statements/delivery-rows';
import { earlierUndispatchedEvents, undispatchedEvents, type EventToDispatch } from './statements/outbox-events';

/**
 * The worker's handle on Postgres: the hot prepared statements of `statements/` (fan-out, claim,
 * record, retention), bound to the pool they run on. The worker reaches the database
 * only through it and the unscoped handle, as route handlers do through `deps.data(tenant)`.
 */
export function deliveryWork(pool: SqlPool) {
  return {
    undispatchedEvents: (eventIds: string[]) => undispatchedEvents(pool, eventIds),
    earlierUndispatchedEvents: (later: EventToDispatch[]) => earlierUndispatchedEvents(pool, later),
    fanOutEvents: (eventIds: string[], rows: DeliveryRow[]) => fanOutEvents(pool, eventIds, rows),
    claimDueDeliveries: (limit: number, claimMs: number) => claimDueDeliveries(pool, limit, claimMs),
    releaseDeliveries: (deliveries: Pick<ClaimedDelivery, 'id' | 'leasedUntil'>[]) => releaseDeliveries(pool, deliveries),
    recordAttempts: (records: AttemptRecord[]) => recordAttempts(pool, records),
    recordAttemptsAndClaim: (records: AttemptRecord[], limit: number, claimMs: number) => recordAttemptsAndClaim(pool, records, limit, claimMs),
    deleteExpiredDeliveries: (createdBefore: Date, limit: number) => deleteExpiredDeliveries(pool, createdBefore, limit),
  };
}

export type DeliveryWork = ReturnType<typeof deliveryWork>;

import { retainedSince } from '@worktrack/events';
import type { WorkerDeps } from './deps';

const BATCH = 500;
/** Rows pruned per statement, and statements per sweep and table: a bounded lock and a bounded sweep. */
const PRUNE_BATCH = 5_000;
const PRUNE_BATCHES = 10;
const DAY_MS = 24 * 3_600_000;

export interface SweepOptions {
  /** How overdue an undispatched event must be before it is published again. */
  graceMs: number;
  /** Finished deliveries created longer ago than this are deleted with their attempts. */
  deliveryRetentionDays: number;
}

/**
 * The reconciliation sweep: Postgres holds the truth and BullMQ is a cache of it. Events the API
 * could not publish (Redis down), or whose jobs Redis lost, are put back on their queue once overdue
 * and no job of their shard may still hold them. Deliveries need no sweep:
 * the workers' claims find whatever is due in Postgres, jobs or not.
 * It also deletes the events past their 30 days (docs/decisions.md#events-api), once dispatched (the
 * deliveries keep their own bodies), and the finished deliveries past DELIVERY_RETENTION_DAYS with
 * their attempts (docs/operations.md#retention), each in bounded batches.
 */
export async function sweep(
  deps: Pick<WorkerDeps, 'data' | 'work' | 'jobs'>,
  options: SweepOptions,
): Promise<{ events: number; pruned: number; deliveriesPruned: number }> {
  const { data, jobs } = deps;
  const overdue = await data.overdueEvents(new Date(Date.now() - options.graceMs), BATCH);
  const events = await jobs.republishLostEvents(overdue, options.graceMs);

  const pruned = await data.pruneDispatchedEvents(retainedSince(), PRUNE_BATCHES);
  const deliveriesCreatedBefore = new Date(Date.now() - options.deliveryRetentionDays * DAY_MS);
  const deliveriesPruned = await inBatches(() => deps.work.deleteExpiredDeliveries(deliveriesCreatedBefore, PRUNE_BATCH));
  return { events, pruned, deliveriesPruned };
}

/** Runs a bounded delete until it deletes less than a batch, at most PRUNE_BATCHES times; the total deleted. */
async function inBatches(deleteBatch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < PRUNE_BATCHES; i++) {
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < PRUNE_BATCH) break;
  }
  return total;
}

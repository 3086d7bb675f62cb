import { retainedSince } from '@worktrack/events';
import type { WorkerDeps } from './deps';

const BATCH = 500;
/** Statements of 5,000 events pruned per sweep: a bounded lock and a bounded sweep. */
const PRUNE_BATCHES = 10;

/**
 * The reconciliation sweep: Postgres holds the truth and BullMQ is a cache of it. Events the API
 * could not publish (Redis down) are put back on their queue once overdue. Deliveries need no sweep:
 * the workers' claims find whatever is due in Postgres, jobs or not.
 * It also deletes the events past their 30 days (docs/decisions.md#events-api), once dispatched: the deliveries keep
 * their own bodies.
 */
export async function sweep(deps: Pick<WorkerDeps, 'data' | 'jobs'>, graceMs: number): Promise<{ events: number; pruned: number }> {
  const { data, jobs } = deps;
  const events = await data.overdueEvents(new Date(Date.now() - graceMs), BATCH);
  for (const id of events) await jobs.ensureEventDispatched(id);
  return { events: events.length, pruned: await data.pruneDispatchedEvents(retainedSince(), PRUNE_BATCHES) };
}

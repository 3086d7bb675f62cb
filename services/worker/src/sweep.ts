import { retainedSince } from '@worktrack/events';
import type { WorkerDeps } from './deps';

const BATCH = 500;
/** Events pruned per statement, and statements per sweep: a bounded lock and a bounded sweep. */
const PRUNE_BATCH = 5_000;
const PRUNE_BATCHES = 10;

/**
 * The reconciliation sweep: Postgres holds the truth and BullMQ is a cache of it. Events the API
 * could not publish (Redis down) are put back on their queue once overdue. Deliveries need no sweep:
 * the workers' claims find whatever is due in Postgres, jobs or not.
 * It also deletes the events past their 30 days (docs/decisions.md#events-api), once dispatched: the deliveries keep
 * their own bodies.
 */
export async function sweep(deps: Pick<WorkerDeps, 'db' | 'jobs'>, graceMs: number): Promise<{ events: number; pruned: number }> {
  const { db, jobs } = deps;
  const cutoff = new Date(Date.now() - graceMs);

  const events = await db.outboxEvent.findMany({
    where: { dispatchedAt: null, createdAt: { lt: cutoff } },
    orderBy: { createdAt: 'asc' },
    select: { id: true, organizationId: true },
    take: BATCH,
  });
  for (const event of events) await jobs.ensureEventDispatched(event);

  return { events: events.length, pruned: await pruneEvents(deps.db) };
}

/** Dispatched before the retention window began, so created before it too: the dispatchedAt index finds them. */
async function pruneEvents(db: WorkerDeps['db']): Promise<number> {
  let pruned = 0;
  for (let i = 0; i < PRUNE_BATCHES; i++) {
    const deleted = await db.$executeRaw`
      DELETE FROM "OutboxEvent" WHERE id IN (
        SELECT id FROM "OutboxEvent" WHERE "dispatchedAt" < ${retainedSince()} LIMIT ${PRUNE_BATCH}
      )`;
    pruned += deleted;
    if (deleted < PRUNE_BATCH) break;
  }
  return pruned;
}

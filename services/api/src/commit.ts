import type { Logger } from '@worktrack/config';
import type { Scope, TenantData, TenantTx } from '@worktrack/db';
import type { DomainEvent } from '@worktrack/events';
import { EventPublisher, type JobScheduler } from '@worktrack/queue';
import type { AppDeps } from './deps';

/** What a change returns: its result, and the events it caused, written to the outbox with it. */
interface Changed<T> {
  result: T;
  events: DomainEvent[];
}

/**
 * A change the data layer writes together with its events in one prepared statement, no
 * interactive transaction (the busiest writes: a task's creation): it records the events itself and
 * returns the ids a subscription awaits.
 */
interface OneStatementChange<T> {
  oneStatement: (data: TenantData) => Promise<{ result: T; awaitedEventIds: string[] }>;
}

type Change<T> = ((tx: TenantTx) => Promise<Changed<T>>) | OneStatementChange<T>;

/**
 * Every write goes through here: runs a change and writes its events to the outbox in one
 * transaction (or one statement), then publishes the events after commit. `timeoutMs` lengthens
 * Prisma's 5 s limit for a change that waits on another service meanwhile.
 */
export async function commitWithEvents<T>(
  deps: Pick<AppDeps, 'data' | 'publisher'>,
  scope: Scope,
  change: Change<T>,
  { timeoutMs }: { timeoutMs?: number } = {},
): Promise<T> {
  const data = deps.data(scope);
  const { result, eventIds } =
    typeof change === 'function'
      ? await data.transaction(
          async (tx) => {
            const { result, events } = await change(tx);
            return { result, eventIds: await tx.events.record(events) };
          },
          { timeoutMs },
        )
      : await change.oneStatement(data).then(({ result, awaitedEventIds }) => ({ result, eventIds: awaitedEventIds }));
  deps.publisher.publish(eventIds);
  return result;
}

/**
 * The one policy for what follows a commit (a queue or store call): best effort, logged, never an
 * error for a change that committed. The backstop is Postgres: the sweep republishes events, the
 * workers' claims find due deliveries with or without a job.
 */
export async function afterCommit(logger: Logger, what: string, effect: () => Promise<unknown>): Promise<void> {
  try {
    await effect();
  } catch (err) {
    logger.warn({ err }, `${what} deferred: committed, the sweep or the claims catch up`);
  }
}

/**
 * Publishes committed events `delayMs` worth at a time, each batch one dispatch job: the longer the
 * gather, the fewer jobs an event shares the fixed cost of. Best effort: if Redis is down the
 * worker's sweep publishes the events later.
 */
export function createEventPublisher(jobs: JobScheduler, logger: Logger, delayMs: number): EventPublisher {
  return new EventPublisher(jobs, {
    delayMs,
    maxBatch: 500,
    onError: (err, eventIds) => logger.warn({ err, eventIds }, 'event publish deferred to the outbox sweep'),
  });
}

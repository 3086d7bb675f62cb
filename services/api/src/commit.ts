import type { Logger } from '@worktrack/config';
import type { Scope, Tx } from '@worktrack/db';
import { recordEvents, type DomainEvent } from '@worktrack/events';
import { EventPublisher, type JobScheduler } from '@worktrack/queue';
import type { AppDeps } from './deps';

/**
 * Runs a change and writes its events to the outbox in one transaction, then publishes the events.
 * `timeoutMs` lengthens Prisma's 5 s limit for a change that waits on another service meanwhile.
 */
export async function commitWithEvents<T>(
  deps: Pick<AppDeps, 'db' | 'publisher'>,
  scope: Scope,
  change: (tx: Tx) => Promise<{ result: T; events: DomainEvent[] }>,
  { timeoutMs }: { timeoutMs?: number } = {},
): Promise<T> {
  const { result, eventIds } = await deps.db.$transaction(
    async (tx) => {
      const { result, events } = await change(tx);
      return { result, eventIds: await recordEvents(tx, scope, events) };
    },
    { timeout: timeoutMs },
  );
  deps.publisher.publish(scope.organizationId, eventIds);
  return result;
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
    onError: (err, events) => logger.warn({ err, eventIds: events.map((event) => event.id) }, 'event publish deferred to the outbox sweep'),
  });
}

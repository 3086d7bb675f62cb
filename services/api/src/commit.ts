import type { Scope, Tx } from '@worktrack/db';
import { recordEvents, type DomainEvent } from '@worktrack/events';
import type { AppDeps } from './deps';

/**
 * Runs a change and writes its events to the outbox in one transaction, then publishes the events.
 * `timeoutMs` lengthens Prisma's 5 s limit for a change that waits on another service meanwhile.
 */
export async function commitWithEvents<T>(
  deps: Pick<AppDeps, 'db' | 'jobs' | 'logger'>,
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
  publishCommitted(deps, eventIds);
  return result;
}

/** Publishing is best effort: if Redis is down the worker's sweep publishes the events later. */
export function publishCommitted(deps: Pick<AppDeps, 'jobs' | 'logger'>, eventIds: string[]): void {
  deps.jobs.publishEvents(eventIds).catch((err: unknown) => {
    deps.logger.warn({ err, eventIds }, 'event publish deferred to the outbox sweep');
  });
}

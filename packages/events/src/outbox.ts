import { newId, type Prisma, type Scope, type Tx } from '@worktrack/db';
import type { DomainEvent } from './catalog';

export interface OutboxRow {
  id: string;
  organizationId: string;
  mode: Scope['mode'];
  type: string;
  data: Prisma.InputJsonObject;
  projectId: string | null;
}

/** docs/decisions.md#events-api: events are kept, and readable, for 30 days. */
const EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** The oldest instant whose events are still kept. */
export const retainedSince = () => new Date(Date.now() - EVENT_RETENTION_MS);

/** The outbox row of one event; its id is the event id. */
export function outboxRow(scope: Scope, event: DomainEvent): OutboxRow {
  return {
    id: newId('event'),
    organizationId: scope.organizationId,
    mode: scope.mode,
    type: event.type,
    data: event.data as Prisma.InputJsonObject,
    projectId: event.projectId,
  };
}

/**
 * Writes events to the outbox inside the caller's transaction, so they commit or roll back
 * with the change that caused them. Returns the ids of those a subscription awaits, to publish
 * after commit (the others are written dispatched: migration 20261122184500_unsubscribed_events).
 */
export async function recordEvents(tx: Tx, scope: Scope, domainEvents: DomainEvent[]): Promise<string[]> {
  if (domainEvents.length === 0) return [];
  const rows = domainEvents.map((event) => outboxRow(scope, event));
  const written = await tx.outboxEvent.createManyAndReturn({ data: rows, select: { id: true, dispatchedAt: true } });
  return written.filter((event) => event.dispatchedAt === null).map((event) => event.id);
}

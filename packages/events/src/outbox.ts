import { newId, type Prisma, type Scope, type Tx } from '@worktrack/db';
import type { DomainEvent } from './catalog';

export interface OutboxRow {
  id: string;
  organizationId: string;
  mode: Scope['mode'];
  type: string;
  data: Prisma.InputJsonObject;
}

/** The outbox row of one event; its id is the event id. */
export function outboxRow(scope: Scope, event: DomainEvent): OutboxRow {
  return {
    id: newId('event'),
    organizationId: scope.organizationId,
    mode: scope.mode,
    type: event.type,
    data: event.data as Prisma.InputJsonObject,
  };
}

/**
 * Writes events to the outbox inside the caller's transaction, so they commit or roll back
 * with the change that caused them. Returns the event ids, to publish after commit.
 */
export async function recordEvents(tx: Tx, scope: Scope, domainEvents: DomainEvent[]): Promise<string[]> {
  if (domainEvents.length === 0) return [];
  const rows = domainEvents.map((event) => outboxRow(scope, event));
  await tx.outboxEvent.createMany({ data: rows });
  return rows.map((row) => row.id);
}

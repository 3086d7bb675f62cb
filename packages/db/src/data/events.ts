import { currentTraceparent } from '@worktrack/telemetry';
import { newId } from '../ids';
import type { TenantConn } from './connection';
import { prismaWindow, type PageWindow } from './listing';

/** An event to write: its type, payload and project (the outbox row adds the id and the tenant). */
export interface EventToRecord {
  type: string;
  data: object;
  /** The project it belongs to, which project-scoped subscriptions select on (docs/decisions.md#subscriber-controls); null for member events. */
  projectId: string | null;
}

/** The tenant's events: the outbox, which is also the Events API's log. */
export function events({ conn, scope, actor }: TenantConn) {
  return {
    /**
     * Writes events to the outbox inside the caller's transaction, so they commit or roll back
     * with the change that caused them. Returns the ids of those a subscription awaits, to publish
     * after commit (the others are written dispatched: migration 20261122184500_unsubscribed_events).
     * Each row keeps the trace context of the change, which its fan-out and attempts continue.
     */
    record: async (toRecord: EventToRecord[]): Promise<string[]> => {
      if (toRecord.length === 0) return [];
      // One statement with the events as arrays (in item order, which their positions follow): through
      // Prisma's createManyAndReturn, compiling the rows took most of a bulk request's CPU.
      const ids = toRecord.map(() => newId('event'));
      const written = await conn.$queryRaw<{ id: string; awaited: boolean }[]>`
        INSERT INTO "OutboxEvent" (id, "organizationId", mode, type, data, "projectId", traceparent, actor)
        SELECT e.id, ${scope.organizationId}, ${scope.mode}::"Mode", e.type, e.data::jsonb, e."projectId", ${currentTraceparent()}, ${JSON.stringify(actor)}::jsonb
        FROM unnest(${ids}::text[], ${toRecord.map((event) => event.type)}::text[], ${toRecord.map((event) => JSON.stringify(event.data))}::text[],
                    ${toRecord.map((event) => event.projectId)}::text[]) WITH ORDINALITY AS e(id, type, data, "projectId", n)
        ORDER BY e.n
        RETURNING id, "dispatchedAt" IS NULL AS awaited`;
      return written.filter((event) => event.awaited).map((event) => event.id);
    },
    /** An event created at or after `since`. */
    find: (id: string, since: Date) => conn.outboxEvent.findFirst({ where: { id, ...scope, createdAt: { gte: since } } }),
    list: ({ since, type }: { since: Date; type?: string }) => {
      const where = { ...scope, createdAt: { gte: since }, ...(type && { type }) };
      return {
        rows: (window: PageWindow<'createdAt'>) => conn.outboxEvent.findMany(prismaWindow(where, window)),
        total: () => conn.outboxEvent.count({ where }),
      };
    },
  };
}

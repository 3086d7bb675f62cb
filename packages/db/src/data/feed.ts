import type { Actor } from '@worktrack/events';
import { Prisma } from '../generated/prisma/client';
import { queryOnPool } from '../client';
import type { Mode } from '../generated/prisma/enums';
import type { TenantConn } from './connection';

/**
 * Where a reader of the feed stands: the transaction id and event id of the last event it was given.
 * Events are handed out in (txid, id) order, and only once every transaction with a smaller id has
 * ended (ARCHITECTURE.md#the-event-feed), so nothing can later appear behind a position.
 */
export interface FeedPosition {
  /** A 64-bit transaction id, as decimal text. */
  txid: string;
  id: string;
}

/** An event as the feed and the streams read it. */
export interface FeedEvent extends FeedPosition {
  organizationId: string;
  mode: Mode;
  type: string;
  data: object;
  actor: Actor;
  projectId: string | null;
  createdAt: Date;
}

export interface FeedFilter {
  types?: string[];
  projectIds?: string[];
}

// Events whose transaction ended: those of transactions older than the oldest of this database still
// running (migration 20261127040000_history_and_feed). The snapshot that computes that bound is the
// statement's own, the one that decides what rows it sees.
const ENDED = Prisma.sql`txid < "OutboxEvent_feed_horizon"()`;
const COLUMNS = Prisma.sql`id, txid::text AS txid, "organizationId", mode::text AS mode, type, data, actor, "projectId", "createdAt"`;

// Qualified: a bare `txid` in ORDER BY names the output column, the text one, which sorts 10 before 9.
const FEED_ORDER = Prisma.sql`ORDER BY "OutboxEvent".txid, "OutboxEvent".id`;

const beyond = (after: FeedPosition | null) => (after ? Prisma.sql`(txid, id) > (${after.txid}::bigint, ${after.id})` : Prisma.sql`TRUE`);

/** The tenant's feed: its events after a position, in the order every reader sees them. */
export function feed({ pool, scope }: TenantConn) {
  return {
    after: (after: FeedPosition | null, { limit, since, filter = {} }: { limit: number; since: Date; filter?: FeedFilter }) => {
      const conditions = [
        Prisma.sql`"organizationId" = ${scope.organizationId}`,
        Prisma.sql`mode = ${scope.mode}::"Mode"`,
        beyond(after),
        ENDED,
        Prisma.sql`"createdAt" >= ${since}`,
      ];
      if (filter.types) conditions.push(Prisma.sql`type = ANY(${filter.types}::text[])`);
      if (filter.projectIds) conditions.push(Prisma.sql`"projectId" = ANY(${filter.projectIds}::text[])`);
      return queryOnPool<FeedEvent>(
        pool,
        Prisma.sql`SELECT ${COLUMNS} FROM "OutboxEvent" WHERE ${Prisma.join(conditions, ' AND ')} ${FEED_ORDER} LIMIT ${limit}`,
      );
    },
  };
}

/** Every tenant's events after a position, for the streams of one API process (which read one tail for all). */
export const tailSql = (after: FeedPosition, limit: number) =>
  Prisma.sql`SELECT ${COLUMNS} FROM "OutboxEvent" WHERE ${beyond(after)} AND ${ENDED} ${FEED_ORDER} LIMIT ${limit}`;

/** The position before every event not yet ended: where a tail that starts now begins. */
export const tailStartSql = Prisma.sql`SELECT "OutboxEvent_feed_horizon"()::text AS txid, '' AS id`;

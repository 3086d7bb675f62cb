import { tailSql, tailStartSql, type FeedEvent, type FeedPosition } from './feed';
import { queryOnPool, type Database, type SqlPool } from '../client';
import { Prisma } from '../generated/prisma/client';
import type { Plan } from '../generated/prisma/enums';
import { newId } from '../ids';
import type { SecretBox } from '../secrets';
import { resealWebhookSecrets } from '../webhook-secrets';
import type { Conn } from './connection';
import { disableNotices } from './disable-notices';
import { dashboardLinks, insertApiKey, resolveKey, signIn, type NewApiKey } from './sign-in';

const PRUNE_BATCH = 5_000;

function crossTenant(conn: Conn) {
  return {
    signIn: signIn(conn),
    disableNotices: disableNotices(conn),
    dashboardLinks: dashboardLinks(conn),
    insertApiKey: (key: NewApiKey) => insertApiKey(conn, key),

    /** A new organization with its first admin (the user made, or found by email). */
    createOrganization: async (organization: { name: string; plan: Plan; dailyQuota: number | null }, email: string) => {
      const created = await conn.organization.create({ data: { id: newId('organization'), ...organization } });
      const user = await conn.user.upsert({ where: { email }, create: { id: newId('user'), email }, update: {} });
      await conn.membership.create({ data: { organizationId: created.id, userId: user.id, role: 'admin' } });
      return { organization: created, user };
    },

    /** The organization of that name, whatever its case: names are unique to operators' eyes. */
    organizationNamed: (name: string) => conn.organization.findFirst({ where: { name: { equals: name, mode: 'insensitive' } } }),
    /** Every organization, oldest first, with its number of members. */
    organizationsWithMemberCounts: () => conn.organization.findMany({ orderBy: { id: 'asc' }, include: { _count: { select: { memberships: true } } } }),
    /** The memberships of the user with that email (in one organization, if named), with the organization and the user. */
    membershipsOf: (email: string, organizationId?: string) =>
      conn.membership.findMany({
        where: { user: { email: email.toLowerCase() }, ...(organizationId && { organizationId }) },
        include: { organization: true, user: true },
        orderBy: { organizationId: 'asc' },
      }),

    /** The events of every tenant after a position, in feed order (an API process's one tail for its streams). */
    tailEvents: (after: FeedPosition, limit: number) => conn.$queryRaw<FeedEvent[]>(tailSql(after, limit)),
    /** Where a tail that starts now begins: before every event whose transaction has not ended. */
    tailStart: async () => (await conn.$queryRaw<FeedPosition[]>(tailStartSql))[0]!,
  };
}

export type UnscopedTx = ReturnType<typeof crossTenant>;

/**
 * What a service asks of every tenant's data over and over (a key's tenant, its health check, its
 * backlog gauge, the worker's sweep) and the sealing of secrets each API start runs: raw SQL on the
 * pool. Through Prisma, the first of them would make its client and load its query compiler (tens of
 * MB resident) in a process that may need it for nothing else.
 */
function onPool(pool: SqlPool) {
  return {
    resolveKey: (hash: string) => resolveKey(pool, hash),
    /** Answers once the database does. */
    ping: async () => void (await pool.query('SELECT 1')),
    /** How many events wait for their fan-out (a backlog gauge). */
    countUndispatchedEvents: async () =>
      (await queryOnPool<{ count: number }>(pool, Prisma.sql`SELECT count(*)::int AS count FROM "OutboxEvent" WHERE "dispatchedAt" IS NULL`))[0]!.count,
    /** Seals every webhook secret and header set with the current key (each API start, `pnpm cli secrets reseal`). */
    resealWebhookSecrets: (box: SecretBox) => resealWebhookSecrets(pool, box),
    /** Events still undispatched, created before `before`, oldest first: the worker's sweep publishes them again. */
    overdueEvents: (before: Date, take: number) =>
      queryOnPool<{ id: string; organizationId: string; createdAt: Date; traceparent: string | null }>(
        pool,
        Prisma.sql`
          SELECT id, "organizationId", "createdAt", traceparent FROM "OutboxEvent"
          WHERE "dispatchedAt" IS NULL AND "createdAt" < ${before}
          ORDER BY "createdAt" LIMIT ${take}`,
      ),
    /**
     * Deletes up to `batches` x 5,000 events dispatched before `before` (so created before it too:
     * the dispatchedAt index finds them), a bounded statement at a time. How many.
     */
    pruneDispatchedEvents: async (before: Date, batches: number) => {
      let pruned = 0;
      for (let i = 0; i < batches; i++) {
        const { rowCount } = await pool.query(
          `DELETE FROM "OutboxEvent" WHERE id IN (SELECT id FROM "OutboxEvent" WHERE "dispatchedAt" < $1 LIMIT ${PRUNE_BATCH})`,
          [before],
        );
        const deleted = rowCount ?? 0;
        pruned += deleted;
        if (deleted < PRUNE_BATCH) break;
      }
      return pruned;
    },
  };
}

/**
 * The data of every tenant at once through Prisma alone: what tools and fixtures holding only a
 * client do (bootstrapping an organization, issuing keys).
 */
export interface UnscopedPrismaData extends UnscopedTx {
  transaction<T>(work: (tx: UnscopedTx) => Promise<T>): Promise<T>;
}

/**
 * The data of every tenant at once, for the few jobs that are not one tenant's: finding the tenant a
 * credential belongs to, the sweep and retention, bootstrapping an organization, health checks.
 * Route handlers use `tenantData` instead.
 */
export interface UnscopedData extends UnscopedPrismaData, ReturnType<typeof onPool> {}

export function unscopedData(database: Pick<Database, 'db' | 'pool'>): UnscopedData;
export function unscopedData(database: Pick<Database, 'db'>): UnscopedPrismaData;
export function unscopedData(database: Pick<Database, 'db'> & Partial<Pick<Database, 'pool'>>): UnscopedPrismaData | UnscopedData {
  const data: UnscopedPrismaData = {
    ...crossTenant(database.db),
    transaction: (work) => database.db.$transaction((tx) => work(crossTenant(tx))),
  };
  return database.pool ? { ...data, ...onPool(database.pool) } : data;
}

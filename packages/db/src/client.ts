import { PrismaPg } from '@prisma/adapter-pg';
import { Client, Pool, type QueryConfig } from 'pg';
import { type Prisma, PrismaClient } from './generated/prisma/client';

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;
/** The `pg` pool under Prisma, for the few hot statements of `statements/`. */
export type SqlPool = Pool;

export interface Database {
  db: Db;
  pool: SqlPool;
  close(): Promise<void>;
}

/**
 * What sits between the services and Postgres: nothing, or PgBouncer in transaction pooling mode,
 * where consecutive transactions of one client connection may run on different server connections.
 */
export type DatabasePooler = 'none' | 'pgbouncer';

export interface DatabaseOptions {
  /** Connections this process opens (to Postgres, or to PgBouncer). */
  poolSize?: number;
  pooler?: DatabasePooler;
}

/**
 * A `pg` client that sends every statement unnamed. A named statement is prepared once per server
 * connection and then only bound; behind PgBouncer in transaction mode (1.18 as Debian ships it) the
 * next transaction may land on a server connection that never prepared it. Unnamed statements are
 * parsed with each execution (the plan is not reused), which is what transaction pooling can carry.
 */
class UnnamedStatementClient extends Client {
  override query(...args: unknown[]): any {
    const [config] = args;
    if (typeof config === 'object' && config !== null && 'name' in config) {
      const { name: _name, ...unnamed } = config as QueryConfig;
      args[0] = unnamed;
    }
    return (super.query as (...a: unknown[]) => unknown)(...args);
  }
}

/**
 * Prisma on a `pg` pool of `poolSize` connections, and that pool itself: the hot statements run on
 * it directly (a statement through Prisma costs 2-3x the Node CPU), sharing its connections.
 * Nothing here holds session state across transactions (no advisory lock, LISTEN or plain SET; the
 * claim's settings are its function's own), so with `pooler: 'pgbouncer'` dropping the statements'
 * names is all transaction pooling needs.
 */
export function createDatabase(databaseUrl: string, { poolSize = 10, pooler = 'none' }: DatabaseOptions = {}): Database {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: poolSize,
    connectionTimeoutMillis: 5_000,
    ...(pooler === 'pgbouncer' && { Client: UnnamedStatementClient }),
  });
  // A pooled connection that breaks while idle is replaced on next use; the error must not crash the
  // process. One that breaks while checked out between two statements (a transaction's, as the
  // server shuts down in a failover) emits its error on the client: the next statement fails with it
  // and the client is released as broken, so there too the event itself is only acknowledged.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    db,
    pool,
    async close() {
      await db.$disconnect();
      await pool.end();
    },
  };
}

/**
 * A statement built with `Prisma.sql` (its values bound, never spliced), run on the pool: for the hot
 * reads whose SQL is composed per request, such as the lists' pages and totals.
 */
export async function queryOnPool<Row>(pool: SqlPool, statement: Prisma.Sql): Promise<Row[]> {
  return (await pool.query(statement.text, statement.values)).rows as Row[];
}

/** Prisma alone, for tools that need no hot statement. */
export function createDb(databaseUrl: string, options: { poolSize?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}

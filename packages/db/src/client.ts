import { PrismaPg } from '@prisma/adapter-pg';
import { Client, Pool, type PoolClient, type QueryConfig } from 'pg';
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
 * Prisma (made at its first use) on a `pg` pool of `poolSize` connections, and that pool itself: the hot statements run on
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
  const prisma = prismaOnFirstUse(pool);
  return {
    db: prisma.db,
    pool,
    async close() {
      await prisma.disconnect();
      await pool.end();
    },
  };
}

/**
 * Prisma on `pool`, made when something first reads a property of `db`. Making the client takes a
 * few megabytes of heap, and its first query loads its WebAssembly query compiler, whose compilation
 * leaves some 30 MB resident: a process whose work stays on the pool's statements (an API replica
 * serving task lists and creates, health checks and key lookups) never pays either.
 */
function prismaOnFirstUse(pool: Pool): { db: Db; disconnect(): Promise<void> } {
  let client: Db | undefined;
  const made = () => (client ??= new PrismaClient({ adapter: new PrismaPg(pool) }));
  // Methods are bound to the client itself, so that inside them `this` is the client, not the proxy.
  const bound = new Map<PropertyKey, unknown>();
  const db = new Proxy({} as Db, {
    get(_target, property) {
      const value: unknown = Reflect.get(made(), property);
      if (typeof value !== 'function') return value;
      if (!bound.has(property)) bound.set(property, value.bind(client));
      return bound.get(property);
    },
  });
  return { db, disconnect: async () => client?.$disconnect() };
}

/**
 * A statement built with `Prisma.sql` (its values bound, never spliced), run on the pool or on one of
 * its connections: for the hot reads whose SQL is composed per request, such as the lists' pages and
 * totals, and for raw SQL that needs nothing of Prisma.
 */
export async function queryOnPool<Row>(pool: SqlPool | PoolClient, statement: Prisma.Sql): Promise<Row[]> {
  return (await pool.query(statement.text, statement.values)).rows as Row[];
}

/** Runs `work` in one transaction on a connection of the pool: raw SQL that needs nothing of Prisma. */
export async function transactionOnPool<T>(pool: SqlPool, work: (connection: PoolClient) => Promise<T>): Promise<T> {
  const connection = await pool.connect();
  let broken = false;
  try {
    await connection.query('BEGIN');
    const result = await work(connection);
    await connection.query('COMMIT');
    return result;
  } catch (err) {
    await connection.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    // A connection whose rollback failed is in no known state: the pool closes it.
    connection.release(broken);
  }
}

/** Prisma alone, for tools that need no hot statement. */
export function createDb(databaseUrl: string, options: { poolSize?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}

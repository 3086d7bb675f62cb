import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
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
 * Prisma on a `pg` pool of `poolSize` connections, and that pool itself: the hot statements run on
 * it directly (a statement through Prisma costs 2-3x the Node CPU), sharing its connections.
 */
export function createDatabase(databaseUrl: string, { poolSize = 10 }: { poolSize?: number } = {}): Database {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize, connectionTimeoutMillis: 5_000 });
  // A pooled connection that breaks while idle is replaced on next use; the error must not crash the process.
  pool.on('error', () => undefined);
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

import { PrismaPg } from '@prisma/adapter-pg';
import { Prisma, PrismaClient } from './generated/prisma/client';

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;

export function createDb(databaseUrl: string, options: { poolSize?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}

/**
 * Locks one row for the rest of the transaction, so that read-modify-write sequences
 * (previous attributes, last-admin checks) see a stable value.
 */
export async function lockRow(tx: Tx, table: 'Task' | 'Project' | 'Webhook' | 'Comment', id: string): Promise<void> {
  await tx.$queryRawUnsafe(`SELECT 1 FROM "${table}" WHERE id = $1 FOR UPDATE`, id);
}

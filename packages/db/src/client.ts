import { PrismaPg } from '@prisma/adapter-pg';
import { Prisma, PrismaClient } from './generated/prisma/client';
import type { Scope } from './scope';

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;

export function createDb(databaseUrl: string, options: { poolSize?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}

export type LockableTable = 'Task' | 'Project' | 'Webhook' | 'Comment' | 'File';

/**
 * Locks one of the tenant's rows for the rest of the transaction, so that read-modify-write
 * sequences (previous attributes, last-admin checks) see a stable value. The scope is part of the
 * lock, so another tenant's id locks nothing. Returns whether the row exists.
 */
export async function lockScopedRow(tx: Tx, table: LockableTable, scope: Scope, id: string): Promise<boolean> {
  const rows = await tx.$queryRawUnsafe<unknown[]>(
    `SELECT 1 FROM "${table}" WHERE id = $1 AND "organizationId" = $2 AND mode = $3::"Mode" FOR UPDATE`,
    id,
    scope.organizationId,
    scope.mode,
  );
  return rows.length > 0;
}

import type { Db, SqlPool, Tx } from '../client';
import type { Actor } from '@worktrack/events';
import type { Scope } from '../scope';

/** Prisma, or one of its transactions: what a table module's functions run on. */
export type Conn = Db | Tx;

/** What every tenant-bound table module is built from: its connection, the pool, the tenant. */
export interface TenantConn {
  conn: Conn;
  /** The pool under Prisma, for the hot statements and the lists' SQL (outside any transaction). */
  pool: SqlPool;
  scope: Scope;
  /** Who acts: the events written through this connection name them. */
  actor: Actor;
}

export type LockableTable = 'Task' | 'Project' | 'Webhook' | 'Comment' | 'File' | 'Label';

/**
 * Locks one of the tenant's rows for the rest of the transaction, so that read-modify-write
 * sequences (previous attributes, last-admin checks) see a stable value. The scope is part of the
 * lock, so another tenant's id locks nothing. Returns whether the row exists.
 */
export async function lockScopedRow(conn: Conn, table: LockableTable, scope: Scope, id: string): Promise<boolean> {
  const rows = await conn.$queryRawUnsafe<unknown[]>(
    `SELECT 1 FROM "${table}" WHERE id = $1 AND "organizationId" = $2 AND mode = $3::"Mode" FOR UPDATE`,
    id,
    scope.organizationId,
    scope.mode,
  );
  return rows.length > 0;
}

/** Serializes a check-then-insert (a plan's last slot, the last admin) for the rest of the transaction. */
export async function advisoryLock(conn: Conn, key: string): Promise<void> {
  await conn.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${key}))`;
}

import type { Database } from '../client';
import type { Scope } from '../scope';
import { comments } from './comments';
import type { Conn, TenantConn } from './connection';
import { deliveries } from './deliveries';
import { events } from './events';
import { files } from './files';
import { apiKeys, invitations, members } from './members';
import { projects } from './projects';
import { tasks } from './tasks';
import { webhooks } from './webhooks';
import { dashboardLinks } from './sign-in';

const TABLES = {
  tasks,
  projects,
  comments,
  files,
  events,
  webhooks,
  deliveries,
  members,
  invitations,
  apiKeys,
  dashboardLinks: (on: TenantConn) => dashboardLinks(on.conn),
};

type Tables = { [K in keyof typeof TABLES]: ReturnType<(typeof TABLES)[K]> };

/** The table modules bound to one tenant, each built on first use (a request touches one or two of them). */
function tables(on: TenantConn): Tables & { scope: TenantConn['scope'] } {
  const bound: Partial<Tables> = {};
  const handle = { scope: on.scope } as Tables & { scope: TenantConn['scope'] };
  for (const name of Object.keys(TABLES) as (keyof Tables)[]) {
    Object.defineProperty(handle, name, { enumerable: true, get: () => (bound[name] ??= TABLES[name](on) as never) });
  }
  return handle;
}

/** One tenant's data, inside a transaction. Every function is bound to the tenant: none takes a scope. */
export type TenantTx = ReturnType<typeof tables>;

/** One tenant's data: the only way route handlers reach rows. */
export interface TenantData extends TenantTx {
  /**
   * Runs `work` in one transaction on the tenant's data. `timeoutMs` lengthens Prisma's 5 s limit
   * for work that waits on another service meanwhile (an object store).
   */
  transaction<T>(work: (tx: TenantTx) => Promise<T>, options?: { timeoutMs?: number }): Promise<T>;
}

/** Binds the data layer to one tenant (an organization and its live or test dataset). */
export function tenantData(database: Pick<Database, 'db' | 'pool'>, { organizationId, mode }: Scope): TenantData {
  // The scope alone (a caller's tenant carries more), since the table modules spread it into statements.
  const scope = { organizationId, mode };
  const bind = (conn: Conn) => tables({ conn, pool: database.pool, scope });
  return Object.assign(bind(database.db), {
    transaction: <T>(work: (tx: TenantTx) => Promise<T>, { timeoutMs }: { timeoutMs?: number } = {}) =>
      database.db.$transaction((tx) => work(bind(tx)), { timeout: timeoutMs }),
  });
}

import type { Database } from '../client';
import { SYSTEM_ACTOR, type Actor } from '@worktrack/events';
import type { ActingScope, Scope } from '../scope';
import { taskActivity } from './activity';
import { comments } from './comments';
import type { Conn, TenantConn } from './connection';
import type { EventToRecord } from './events';
import { deliveries } from './deliveries';
import { events } from './events';
import { feed } from './feed';
import { files } from './files';
import { labels } from './labels';
import { apiKeys, invitations, members } from './members';
import { projects } from './projects';
import { references } from './references';
import { relations } from './relations';
import { subtaskTrees } from './subtasks';
import { tasks } from './tasks';
import { webhooks } from './webhooks';
import { dashboardLinks, insertSession, type NewSession } from './sign-in';

const TABLES = {
  tasks,
  taskActivity,
  subtaskTrees,
  labels,
  relations,
  projects,
  references,
  comments,
  files,
  events,
  feed,
  webhooks,
  deliveries,
  members,
  invitations,
  apiKeys,
  dashboardLinks: (on: TenantConn) => dashboardLinks(on.conn),
  /** A session of a member of the tenant's organization (the dashboard's invitation page signs the new member in). */
  dashboardSessions: ({ conn, scope }: TenantConn) => ({
    create: (userId: string, session: NewSession) => insertSession(conn, { organizationId: scope.organizationId, userId }, session),
  }),
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

/** What a change returns: its result, and the events it caused, written to the outbox with it. */
interface Changed<T> {
  result: T;
  events: EventToRecord[];
}

/**
 * A change written together with its events in one prepared statement, no interactive transaction
 * (the busiest write, a task's creation): it records its events itself and returns the ids a
 * subscription awaits.
 */
interface OneStatementChange<T> {
  oneStatement: (data: TenantTx) => Promise<{ result: T; awaitedEventIds: string[] }>;
}

interface TransactionOptions {
  /** Lengthens Prisma's 5 s limit for work that waits on another service meanwhile (an object store). */
  timeoutMs?: number;
}

/** One tenant's data: the only way route handlers reach rows. */
export interface TenantData extends TenantTx {
  /** Runs `work` in one transaction on the tenant's data (reads and writes that cause no event). */
  transaction<T>(work: (tx: TenantTx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Every write that causes events goes through here: the change and its events' outbox rows commit
   * together (one transaction, or one statement), then the ids a subscription awaits are handed to
   * `onCommitted` (the API's publisher; best effort, the sweep is the backstop).
   */
  commitWithEvents<T>(change: ((tx: TenantTx) => Promise<Changed<T>>) | OneStatementChange<T>, options?: TransactionOptions): Promise<T>;
}

/** What happens once events committed: they are published, a few milliseconds' worth at a time. */
export interface CommitHooks {
  onCommitted(eventIds: string[]): void;
}

/**
 * Binds the data layer to one tenant (an organization and its live or test dataset) and to who acts
 * in it (the service itself unless the scope names someone).
 */
export function tenantData(
  database: Pick<Database, 'db' | 'pool'>,
  { organizationId, mode, actor = SYSTEM_ACTOR }: ActingScope,
  hooks: CommitHooks,
): TenantData {
  // The scope alone (a caller's tenant carries more), since the table modules spread it into statements.
  const scope = { organizationId, mode };
  const bind = (conn: Conn) => tables({ conn, pool: database.pool, scope, actor });
  const data = bind(database.db);
  const transaction = <T>(work: (tx: TenantTx) => Promise<T>, { timeoutMs }: TransactionOptions = {}) =>
    database.db.$transaction((tx) => work(bind(tx)), { timeout: timeoutMs });
  return Object.assign(data, {
    transaction,
    async commitWithEvents<T>(change: ((tx: TenantTx) => Promise<Changed<T>>) | OneStatementChange<T>, options?: TransactionOptions): Promise<T> {
      const { result, eventIds } =
        typeof change === 'function'
          ? await transaction(async (tx) => {
              const { result, events } = await change(tx);
              return { result, eventIds: await tx.events.record(events) };
            }, options)
          : await change.oneStatement(data).then(({ result, awaitedEventIds }) => ({ result, eventIds: awaitedEventIds }));
      hooks.onCommitted(eventIds);
      return result;
    },
  });
}

/** Tenants whose handles are kept; past it they are all dropped and made again as used. */
const HANDLES_KEPT = 10_000;

const actorKey = (actor: Actor = SYSTEM_ACTOR) => (actor.type === 'user' ? `${actor.userId} ${actor.apiKeyId ?? ''}` : actor.type);

/**
 * `tenantData` for every tenant and actor, each handle made once and kept: a handle holds nothing of a
 * request, only its tenant's bound table modules, and making one per request cost a busy API's allocations.
 */
export function tenantHandles(database: Pick<Database, 'db' | 'pool'>, hooksOf: (scope: Scope) => CommitHooks): (scope: ActingScope) => TenantData {
  const handles = new Map<string, TenantData>();
  return (scope) => {
    const key = `${scope.organizationId} ${scope.mode} ${actorKey(scope.actor)}`;
    let handle = handles.get(key);
    if (!handle) {
      if (handles.size >= HANDLES_KEPT) handles.clear();
      handle = tenantData(database, scope, hooksOf(scope));
      handles.set(key, handle);
    }
    return handle;
  };
}

import type { ApiConfig } from '@worktrack/config';
import { Mode, tenantHandles, type Database, type Organization, type Role, type UnscopedData } from '@worktrack/db';
import { SYSTEM_ACTOR } from '@worktrack/events';
import type { AppDeps } from '../deps';
import { PERMISSIONS } from '../http/permissions';
import type { Caller } from '../http/route';

/** A member as `membershipsOf` finds them. */
interface Membership {
  userId: string;
  role: Role;
  organization: Pick<Organization, 'id' | 'name' | 'plan' | 'dailyQuota'>;
}

/**
 * An operator's command as the caller of an operation (`via: 'system'`), so that what it changes goes
 * through the pipeline with the API's validation and rules: it acts in an organization's live data
 * for one of its members, with every permission (the operator holds the machine), and its events
 * name the system; the worker's sweep publishes them. It has what a command has, the database and
 * the settings: an operation needing more (Redis, the object store, the mailer, an HTTP exchange) is
 * not one a command runs, and fails naming what it lacks.
 */
export function operatorCaller(
  { unscoped, database, config }: { unscoped: UnscopedData; database: Database; config: ApiConfig },
  membership: Membership,
): Caller {
  const has = { config, unscoped, data: tenantHandles(database, () => ({ onCommitted: () => undefined })) };
  const deps = new Proxy(has, {
    get: (target, key) => {
      if (key in target) return target[key as keyof typeof has];
      throw new Error(`An operator's command has no ${String(key)}`);
    },
  }) as unknown as AppDeps;
  const { organization } = membership;
  return {
    tenant: {
      organizationId: organization.id,
      organizationName: organization.name,
      plan: organization.plan,
      dailyQuota: organization.dailyQuota,
      mode: Mode.live,
      userId: membership.userId,
      role: membership.role,
      keyId: '',
      permissions: new Set(PERMISSIONS),
      actor: SYSTEM_ACTOR,
    },
    via: 'system',
    deps,
  };
}

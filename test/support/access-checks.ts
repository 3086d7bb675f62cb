import type { Role } from '@worktrack/db';
import { effectivePermissions, type Permission } from '../../services/api/src/http/permissions';
import type { Harness, TestOrg } from './api-harness';
import { addMember, as, client, createOrg, expectError, keyWith } from './api-harness';

/**
 * The role matrix of docs/decisions.md#tenancy-and-keys, written out rather than read from the code
 * under test: what a `*` key of each role may do. Subscriptions and deliveries are the admins' alone.
 */
const ROLE_RIGHTS: Record<Exclude<Role, 'admin'>, readonly Permission[]> = {
  member: [
    'tasks:read',
    'tasks:write',
    'projects:read',
    'projects:write',
    'members:read',
    'comments:read',
    'comments:write',
    'files:read',
    'files:write',
    'events:read',
  ],
  guest: ['tasks:read', 'projects:read', 'members:read', 'comments:read', 'comments:write', 'files:read', 'events:read'],
};

/** A permission that a key holding another one holds too: keys made before `events:read` existed read events with `webhooks:read`. */
const IMPLIED_BY: Partial<Record<Permission, Permission>> = { 'events:read': 'webhooks:read' };

/** Whether the answer refuses the request for lacking the permission (a 403 for another reason, such as a role the key cannot grant, is not one). */
const refusedFor = (res: { status: number; body: { error?: { message?: string } } }, permission: Permission) =>
  res.status === 403 && (res.body.error?.message ?? '').includes(permission);

/**
 * An organization of its own for the role and permission checks, made once per harness, so that what
 * its keys are let do lands there and no test's `org` or `otherOrg` sees it: its admin, and `*` keys
 * of a member and a guest.
 */
const roleOrgs = new WeakMap<Harness, Promise<{ org: TestOrg; member: string; guest: string }>>();
function roleOrgOf(harness: Harness) {
  let roleOrg = roleOrgs.get(harness);
  if (!roleOrg) {
    roleOrg = createOrg(harness.db).then(async (org) => {
      const [member, guest] = await Promise.all([addMember(harness.db, org, { role: 'member' }), addMember(harness.db, org, { role: 'guest' })]);
      return { org, member: member.key, guest: guest.key };
    });
    roleOrgs.set(harness, roleOrg);
  }
  return roleOrg;
}

export interface SecuredRoute {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  permission: Permission;
  body?: object;
}

export interface SecurityContext {
  harness: Harness;
  org: TestOrg;
  otherOrg: TestOrg;
}

/** The checks every authenticated route must pass (ARCHITECTURE.md#tests). */
export function itEnforcesAccess(
  context: () => SecurityContext,
  route: () => SecuredRoute,
  /** The path names one resource of `org`'s live data: other tenants and test keys must get 404. */
  { namesResource }: { namesResource: boolean },
): void {
  const send = (key: string | null, r: SecuredRoute) => {
    let req = client(context().harness.app)[r.method](r.path);
    if (key !== null) req = req.set('Authorization', key);
    return r.body ? req.send(r.body) : req;
  };

  it('answers 401 without a key, with a malformed key and with an unknown key', async () => {
    const r = route();
    expectError(await send(null, r), 401, 'unauthenticated');
    expectError(await send('Bearer not-a-key', r), 401, 'unauthenticated');
    expectError(await send(`Bearer tk_live_${'x'.repeat(32)}`, r), 401, 'unauthenticated');
    expectError(await send(`Basic ${context().org.liveKey}`, r), 401, 'unauthenticated');
  });

  it('answers 403 to a key lacking the permission', async () => {
    const r = route();
    const { harness, org } = context();
    const other = r.permission === 'tasks:read' ? 'projects:read' : 'tasks:read';
    const key = await keyWith(harness.db, org, [other]);
    expectError(await send(`Bearer ${key}`, r), 403, 'forbidden');
  });

  /*
   * The keys below belong to an organization of their own: a route naming `org`'s record answers them
   * 404 once the permission is granted (checked first) and 403 when it is not, so nothing of `org` changes.
   */
  it.each(['member', 'guest'] as const)(
    'answers a %s as the role matrix says: 403 outside its rights, never refused for the permission within them',
    async (role) => {
      const r = route();
      const res = await send(`Bearer ${(await roleOrgOf(context().harness))[role]}`, r);
      if (ROLE_RIGHTS[role].includes(r.permission)) expect({ role, refused: refusedFor(res, r.permission) }).toEqual({ role, refused: false });
      else expectError(res, 403, 'forbidden');
    },
  );

  it('lets through a key holding the permission alone, or one that implies it', async () => {
    const r = route();
    const { harness } = context();
    const { org: roleOrg } = await roleOrgOf(harness);
    const holders = [r.permission, ...(IMPLIED_BY[r.permission] ? [IMPLIED_BY[r.permission]!] : [])];
    for (const held of holders) {
      const res = await send(`Bearer ${await keyWith(harness.db, roleOrg, [held])}`, r);
      expect({ held, refused: refusedFor(res, r.permission) }).toEqual({ held, refused: false });
    }
  });

  it('answers 429 once the organization has spent its daily quota', async () => {
    const r = route();
    const spent = await createOrg(context().harness.db, { plan: 'enterprise', dailyQuota: 1 });
    await as(context().harness.app, spent.liveKey).get('/v1/tasks');
    const res = await send(`Bearer ${spent.liveKey}`, r);
    expectError(res, 429, 'rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  if (!namesResource) return;
  it("answers 404 to another organization's key and to a test key on live data (403 where test keys are refused outright)", async () => {
    const r = route();
    const { harness, org, otherOrg } = context();
    expectError(await as(harness.app, otherOrg.liveKey)[r.method](r.path).send(r.body), 404, 'not_found');
    const testKeysMay = effectivePermissions(['*'], 'admin', 'test').has(r.permission);
    const test = await as(harness.app, org.testKey)[r.method](r.path).send(r.body);
    if (testKeysMay) expectError(test, 404, 'not_found');
    else expectError(test, 403, 'forbidden');
  });
}

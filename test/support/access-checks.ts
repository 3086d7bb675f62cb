import { effectivePermissions, type Permission } from '../../services/api/src/http/permissions';
import type { Harness, TestOrg } from './api-harness';
import { as, client, createOrg, expectError, keyWith } from './api-harness';

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

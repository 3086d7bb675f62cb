// One pipeline for every caller: a permission, a validation or a write rule declared once on a
// route is enforced alike for an API request, a dashboard action (callOperation) and a bulk item.
import { addMember, as, createHarness, createOrg, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';
import { listKeys, startTestStore, storeEnv, type TestStore } from '@test-support/embedded-store';
import type { Tenant } from '../src/http/auth';
import { ApiError } from '../src/http/errors';
import { PERMISSIONS, type Permission } from '../src/http/permissions';
import type { AuthenticatedRoute, Caller } from '../src/http/route';
import { callOperation } from '../src/pipeline';
import { apiRoutes } from '../src/routes';

let s3: TestStore;
let h: Harness;
let org: TestOrg;
let outsider: TestOrg;
let projectId: string;
let archivedProjectId: string;
let taskId: string;
let commentId: string;

beforeAll(async () => {
  s3 = await startTestStore();
  h = createHarness(storeEnv(s3));
  [org, outsider] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  const admin = as(h.app, org.liveKey);
  projectId = (await admin.post('/v1/projects', { name: 'Pipeline' })).body.id;
  archivedProjectId = (await admin.post('/v1/projects', { name: 'Archived' })).body.id;
  await admin.patch(`/v1/projects/${archivedProjectId}`, { archived: true });
  taskId = (await admin.post('/v1/tasks', { title: 'Commented', projectId })).body.id;
  commentId = (await admin.post(`/v1/tasks/${taskId}/comments`, { content: 'First' })).body.id;
  await addMember(h.db, org);
});
afterAll(async () => {
  await h.close();
  await s3.close();
});

const routes = apiRoutes.filter((route): route is AuthenticatedRoute => route.kind === 'authenticated');
const BULK_OPS: Record<string, 'create' | 'update' | 'delete'> = { createTask: 'create', updateTask: 'update', deleteTask: 'delete' };

/** The tenant a dashboard session of the org's admin acts as, holding every permission but one. */
function dashboardCaller(without?: Permission): Caller {
  const tenant: Tenant = {
    organizationId: org.organization.id,
    organizationName: org.organization.name,
    plan: 'pro',
    dailyQuota: null,
    mode: 'live',
    userId: org.user.id,
    role: 'admin',
    keyId: 'dss_pipeline',
    permissions: new Set(PERMISSIONS.filter((p) => p !== without)),
    actor: { type: 'user', userId: org.user.id, apiKeyId: null },
  };
  // The dashboard's request and response reach only an upload's parser, which no case here gets to.
  return { tenant, via: 'dashboard', deps: h.deps, req: {} as never, res: {} as never };
}

const fill = (path: string, params: Record<string, string> = {}) => `/v1${path.replace(/:(\w+)/g, (_, name: string) => params[name] ?? 'missing')}`;
const paramsOf = (path: string, params: Record<string, string> = {}) =>
  Object.fromEntries([...path.matchAll(/:(\w+)/g)].map(([, name]) => [name!, params[name!] ?? 'missing']));

/** What the dashboard's call of the operation was refused with. */
async function refusalOf(call: Promise<unknown>): Promise<{ status: number; code: string; param: string | null }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected a refusal, got ${String(err)}`);
  return { status: err.status, code: err.code, param: err.param };
}

const apiRefusal = (res: { status: number; body: { error?: { code: string; param: string | null } } }) => ({
  status: res.status,
  code: res.body.error?.code,
  param: res.body.error?.param,
});

describe.each(routes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))('%s', (_name, route) => {
  it(`refuses a caller without ${route.permission} alike over the API, from the dashboard and as a bulk item`, async () => {
    // webhooks:read grants events:read too (keys made before it existed keep reading events).
    const lacking = route.permission === 'events:read' ? ['events:read', 'webhooks:read'] : [route.permission];
    const key = await keyWith(
      h.db,
      org,
      PERMISSIONS.filter((p) => !lacking.includes(p)),
    );
    const res = await as(h.app, key)[route.method](fill(route.path), route.method === 'get' || route.method === 'delete' || route.multipart ? undefined : {});
    expect(apiRefusal(res)).toMatchObject({ status: 403, code: 'forbidden' });

    expect(await refusalOf(callOperation(route, dashboardCaller(route.permission), { params: paramsOf(route.path) }))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });

    const op = BULK_OPS[route.operationId];
    if (op) {
      const item = { op, ...(op !== 'create' && { id: 'missing' }), ...(op !== 'delete' && { data: {} }) };
      expect(apiRefusal(await as(h.app, key).post('/v1/tasks/bulk', { operations: [item] }))).toMatchObject({ status: 403, code: 'forbidden' });
    }
  });

  if (route.body || route.query || route.multipart) {
    it('refuses an unknown field alike over the API, from the dashboard and as a bulk item', async () => {
      const input = route.body ? { body: { unknownField: 1 } } : { query: { unknownField: '1' } };
      const over = route.multipart
        ? await as(h.app, org.liveKey).post(fill(route.path)).field('projectId', projectId).field('unknownField', '1').attach('file', Buffer.from('x'), 'x.txt')
        : route.body
          ? await as(h.app, org.liveKey)[route.method as 'post'](fill(route.path), input.body)
          : await as(h.app, org.liveKey).get(`${fill(route.path)}?unknownField=1`);
      const refused = apiRefusal(over);
      expect(refused).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(refused.param).toEqual(expect.any(String));

      if (!route.multipart) expect(await refusalOf(callOperation(route, dashboardCaller(), { params: paramsOf(route.path), ...input }))).toEqual(refused);

      const op = BULK_OPS[route.operationId];
      if (op && route.body) {
        const res = await as(h.app, org.liveKey).post('/v1/tasks/bulk', { operations: [{ op, ...(op !== 'create' && { id: taskId }), data: input.body }] });
        expect(res.body.error.errors).toEqual([{ index: 0, code: 'invalid_request', param: `data.${refused.param}`, message: expect.any(String) }]);
      }
    });
  }
});

/** Each route that declares write rules (`references`), with a request that breaks one. */
const RULE_CASES: Record<string, () => { params?: Record<string, string>; body: Record<string, unknown>; param: string }[]> = {
  createTask: () => [
    { body: { title: 'x', projectId: archivedProjectId }, param: 'projectId' },
    { body: { title: 'x', projectId, assigneeId: outsider.user.id }, param: 'assigneeId' },
  ],
  updateTask: () => [{ params: { taskId }, body: { assigneeId: outsider.user.id }, param: 'assigneeId' }],
  createTaskComment: () => [{ params: { taskId }, body: { content: 'Hi', mentions: [outsider.user.id] }, param: 'mentions' }],
  updateTaskComment: () => [{ params: { taskId, commentId }, body: { mentions: [outsider.user.id] }, param: 'mentions' }],
  uploadFile: () => [{ body: { projectId: archivedProjectId }, param: 'projectId' }],
};

describe('the write rules', () => {
  it('are declared by exactly the routes this table covers', () => {
    expect(routes.filter((route) => route.references).map((route) => route.operationId)).toEqual(expect.arrayContaining(Object.keys(RULE_CASES)));
    expect(routes.filter((route) => route.references)).toHaveLength(Object.keys(RULE_CASES).length);
  });

  const ruled = routes.filter((route) => RULE_CASES[route.operationId]);
  it.each(ruled.map((route) => [route.operationId, route] as const))(
    '%s refuses a broken rule alike over the API, from the dashboard and as a bulk item',
    async (_id, route) => {
      const before = await h.db.outboxEvent.count({ where: { organizationId: org.organization.id } });
      for (const { params, body, param } of RULE_CASES[route.operationId]!()) {
        const path = fill(route.path, params);
        const over = route.multipart
          ? await as(h.app, org.liveKey).post(path).field('projectId', String(body.projectId)).attach('file', Buffer.from('x'), 'x.txt')
          : await as(h.app, org.liveKey)[route.method as 'post'](path, body);
        expect(apiRefusal(over)).toEqual({ status: 400, code: 'invalid_request', param });

        if (!route.multipart) {
          expect(await refusalOf(callOperation(route, dashboardCaller(), { params: paramsOf(route.path, params), body }))).toEqual({
            status: 400,
            code: 'invalid_request',
            param,
          });
        }
        const op = BULK_OPS[route.operationId];
        if (op) {
          const res = await as(h.app, org.liveKey).post('/v1/tasks/bulk', { operations: [{ op, ...(params?.taskId && { id: params.taskId }), data: body }] });
          expect(res.body.error.errors).toEqual([{ index: 0, code: 'invalid_request', param: `data.${param}`, message: expect.any(String) }]);
        }
      }
      expect(await h.db.outboxEvent.count({ where: { organizationId: org.organization.id } })).toBe(before);
      // An upload refused by a rule keeps no object.
      expect(await listKeys(s3.client)).toEqual([]);
    },
  );
});

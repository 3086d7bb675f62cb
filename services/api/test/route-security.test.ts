import { newId } from '@worktrack/db';
import { apiRoutes } from '../src/routes';
import { addMember, as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess } from '@test-support/access-checks';

/*
 * The shared security suite over every authenticated route of the route table, so a route added
 * to `apiRoutes` is covered without being listed anywhere. Its path is built from one live record
 * of `org` per path parameter; a route naming a record (a path parameter) must also answer 404 to
 * other tenants, which takes a body that passes validation. A route whose parameter has no fixture
 * below, or whose body needs more than `{}` and has no sample below, fails here until one is added.
 */

/** Bodies for routes naming a record whose schema refuses `{}`. */
const SAMPLE_BODIES: Record<string, object> = {
  'post /tasks/:taskId/comments': { content: 'Sample' },
  'patch /members/:userId': { role: 'guest' },
  'post /webhooks/:webhookId/recover': { since: new Date().toISOString() },
  'post /tasks/:taskId/relations': { type: 'relates_to', taskId: 'tsk_unknown' },
};

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
/** One live record of `org` per path parameter. */
const fixtures: Record<string, string> = {};

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  const admin = as(h.app, org.liveKey);
  const live = { organizationId: org.organization.id, mode: 'live' as const };
  const projectId: string = (await admin.post('/v1/projects', { name: 'Secured' }).expect(201)).body.id;
  const taskId: string = (await admin.post('/v1/tasks', { title: 'Secured', projectId }).expect(201)).body.id;
  const relatedTaskId: string = (await admin.post('/v1/tasks', { title: 'Related', projectId }).expect(201)).body.id;
  const webhookId: string = (await admin.post('/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['*'] }).expect(201)).body.id;
  const deliveryId = newId('delivery');
  await h.db.delivery.create({
    data: { ...live, id: deliveryId, webhookId, eventType: 'task.created', body: '{}', nextAttemptAt: new Date(Date.now() + 24 * 3600 * 1000) },
  });
  const fileId = newId('file');
  await h.db.file.create({
    data: {
      ...live,
      id: fileId,
      projectId,
      name: 'secured.txt',
      size: 1,
      contentType: 'text/plain',
      storageKey: `${org.organization.id}/live/${fileId}`,
      uploaderId: org.user.id,
    },
  });
  Object.assign(fixtures, {
    projectId,
    taskId,
    webhookId,
    deliveryId,
    fileId,
    commentId: (await admin.post(`/v1/tasks/${taskId}/comments`, { content: 'Secured' }).expect(201)).body.id,
    keyId: (await admin.post('/v1/api-keys', { name: 'Secured' }).expect(201)).body.id,
    invitationId: (await admin.post('/v1/members/invite', { email: 'secured@example.com', role: 'guest' }).expect(201)).body.id,
    userId: (await addMember(h.db, org, { role: 'member' })).userId,
    eventId: (await h.db.outboxEvent.findFirstOrThrow({ where: live })).id,
    labelId: (await admin.post('/v1/labels', { name: 'Secured' }).expect(201)).body.id,
    relationId: (await admin.post(`/v1/tasks/${taskId}/relations`, { type: 'blocks', taskId: relatedTaskId }).expect(201)).body.id,
  });
});
afterAll(() => h.close());

const ctx = () => ({ harness: h, org, otherOrg });

function pathOf(template: string): string {
  return `/v1${template.replace(/:(\w+)/g, (_, param: string) => {
    const id = fixtures[param];
    if (!id) throw new Error(`No fixture for :${param}; add a live record to route-security.test.ts`);
    return id;
  })}`;
}

function bodyOf(route: (typeof apiRoutes)[number]): object {
  const key = `${route.method} ${route.path}`;
  const body = SAMPLE_BODIES[key] ?? {};
  const refused = route.body?.validate(body).error;
  if (refused) throw new Error(`${key} refuses ${JSON.stringify(body)} (${refused.message}); add a sample body to route-security.test.ts`);
  return body;
}

const secured = apiRoutes.flatMap((route) => (route.kind === 'authenticated' ? [route] : []));

describe.each(secured.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))('%s', (_name, route) => {
  const namesResource = route.path.includes(':');
  itEnforcesAccess(
    ctx,
    () => ({ method: route.method, path: pathOf(route.path), permission: route.permission, body: namesResource ? bodyOf(route) : undefined }),
    {
      namesResource,
    },
  );
});

import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createHarnessWithWorker } from '@test-support/worker-harness';
import { csrfOf, signedIn } from '@test-support/dashboard-session';
import { as, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { startReceiver, type Receiver } from '@test-support/receiver';

/*
 * Subscriber controls (docs/decisions.md#subscriber-controls) end to end: the shipped worker in-process
 * (retries 20 ms apart) fans events out to real receivers, which see only what their subscriptions
 * asked for, with the subscriptions' own headers.
 */

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
const receivers: Receiver[] = [];

beforeAll(async () => {
  h = createHarnessWithWorker();
  org = await createOrg(h.db);
  otherOrg = await createOrg(h.db);
});
afterAll(async () => {
  await h.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

const ok = { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'ok' };

async function receiver(): Promise<Receiver> {
  const started = await startReceiver(ok);
  receivers.push(started);
  return started;
}

async function subscribe(url: string, controls: object, events = ['*']): Promise<{ id: string; body: Record<string, unknown> }> {
  const res = await as(h.app, org.liveKey).post('/v1/webhooks', { url, events, secret: 'secret_known_secret', ...controls });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, body: res.body };
}

const newProject = async (owner = org) => (await as(h.app, owner.liveKey).post('/v1/projects', { name: `P ${randomUUID()}` })).body.id as string;

async function newTask(projectId: string, fields: object = {}): Promise<string> {
  const res = await as(h.app, org.liveKey).post('/v1/tasks', { projectId, title: 'Scoped', ...fields });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** What a receiver got, as `event resourceId` lines, once `expected` have all arrived. */
async function receivedBy(target: Receiver, expected: number): Promise<string[]> {
  const got = await target.waitForCount(expected);
  return got.map(({ json }) => `${json.event} ${json.data.id}`);
}

/** Waits until every event of the organization is fanned out: then every delivery it makes exists. */
async function allDispatched(): Promise<void> {
  await waitFor(async () => ((await h.db.outboxEvent.count({ where: { organizationId: org.organization.id, dispatchedAt: null } })) === 0 ? true : undefined));
}

async function deliveredEvents(webhookId: string): Promise<string[]> {
  const deliveries = await h.db.delivery.findMany({ where: { webhookId, test: false }, orderBy: { createdAt: 'asc' } });
  return deliveries.map((delivery) => {
    const parsed = JSON.parse(delivery.body) as { event: string; data: { id: string } };
    return `${parsed.event} ${parsed.data.id}`;
  });
}

describe('projectIds', () => {
  it("sends a subscription scoped to project A A's task, comment and project events, not B's, and no member events", async () => {
    const [a, b] = [await newProject(), await newProject()];
    const scoped = await receiver();
    const everything = await receiver();
    const { id: scopedId, body } = await subscribe(scoped.url, { projectIds: [a] });
    expect(body.projectIds).toEqual([a]);
    const { id: everythingId } = await subscribe(everything.url, {});

    const taskA = await newTask(a);
    const taskB = await newTask(b);
    const comment = await as(h.app, org.liveKey).post(`/v1/tasks/${taskA}/comments`, { content: 'on A' });
    await as(h.app, org.liveKey).post(`/v1/tasks/${taskB}/comments`, { content: 'on B' });
    await as(h.app, org.liveKey).patch(`/v1/projects/${b}`, { name: 'B renamed' });
    await as(h.app, org.liveKey).patch(`/v1/projects/${a}`, { name: 'A renamed' });
    const invited = await as(h.app, org.liveKey).post('/v1/members/invite', { email: `${randomUUID()}@example.com`, role: 'member' });
    const joined = await request(h.app).post('/v1/invitations/accept').send({ token: invited.body.token, name: 'Newcomer' });
    expect(joined.status).toBe(201);
    await allDispatched();

    // The unscoped subscription got all seven, so every event was fanned out while the scoped one existed.
    expect(await deliveredEvents(everythingId)).toHaveLength(7);
    expect(await deliveredEvents(everythingId)).toContain(`member.added ${joined.body.member.id}`);
    const expected = [`task.created ${taskA}`, `comment.created ${comment.body.id}`, `project.updated ${a}`];
    expect(await deliveredEvents(scopedId)).toEqual(expected);
    expect((await receivedBy(scoped, 3)).sort()).toEqual([...expected].sort());
  });

  it('refuses unknown projects and projects of another organization or mode, naming projectIds', async () => {
    const theirs = await newProject(otherOrg);
    const testModeProject = (await as(h.app, org.testKey).post('/v1/projects', { name: 'test mode' })).body.id as string;
    for (const projectIds of [['prj_nope'], [theirs], [testModeProject], [], ['x', 'x']]) {
      const res = await as(h.app, org.liveKey).post('/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['*'], projectIds });
      expectError(res, 400, 'invalid_request', 'projectIds');
    }
  });

  it('PATCH replaces the projects (refusing another organization’s, changing nothing), and null sends every event again', async () => {
    const [a, b] = [await newProject(), await newProject()];
    const { id } = await subscribe('https://93.184.215.14/hooks', { projectIds: [a] });
    const moved = await as(h.app, org.liveKey).patch(`/v1/webhooks/${id}`, { projectIds: [b] });
    expect(moved.body.projectIds).toEqual([b]);
    const theirs = await newProject(otherOrg);
    expectError(await as(h.app, org.liveKey).patch(`/v1/webhooks/${id}`, { projectIds: [b, theirs] }), 400, 'invalid_request', 'projectIds');
    expect((await as(h.app, org.liveKey).get(`/v1/webhooks/${id}`)).body.projectIds).toEqual([b]);
    const cleared = await as(h.app, org.liveKey).patch(`/v1/webhooks/${id}`, { projectIds: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.projectIds).toBeNull();
    expect((await as(h.app, org.liveKey).get(`/v1/webhooks/${id}`)).body.projectIds).toBeNull();
  });
});

describe('filter', () => {
  it('{"priority": {"$in": ["high"]}} passes high-priority tasks only', async () => {
    const project = await newProject();
    const target = await receiver();
    const { id } = await subscribe(target.url, { filter: { priority: { $in: ['high'] } } }, ['task.created']);
    const high = await newTask(project, { priority: 'high' });
    await newTask(project, { priority: 'low' });
    await newTask(project, { priority: 'medium' });
    const alsoHigh = await newTask(project, { priority: 'high' });
    await allDispatched();
    expect(await deliveredEvents(id)).toEqual([`task.created ${high}`, `task.created ${alsoHigh}`]);
    expect((await receivedBy(target, 2)).sort()).toEqual([`task.created ${high}`, `task.created ${alsoHigh}`].sort());
  });

  it('$gte on dueDate compares instants, whatever the offset written, and a task without one does not match', async () => {
    const project = await newProject();
    const target = await receiver();
    // 2026-12-01T00:00:00+01:00 is 2026-11-30T23:00:00Z.
    const { id } = await subscribe(target.url, { filter: { dueDate: { $gte: '2026-12-01T00:00:00+01:00' } } }, ['task.created']);
    const atBound = await newTask(project, { dueDate: '2026-11-30T23:00:00.000Z' });
    await newTask(project, { dueDate: '2026-11-30T22:59:59.999Z' });
    await newTask(project, {});
    const later = await newTask(project, { dueDate: '2027-01-15T09:00:00Z' });
    await allDispatched();
    expect(await deliveredEvents(id)).toEqual([`task.created ${atBound}`, `task.created ${later}`]);
    expect(await receivedBy(target, 2)).toHaveLength(2);
  });

  it('reads previousAttributes by dotted path: task.updated only when the status was todo', async () => {
    const project = await newProject();
    const { id } = await subscribe('https://93.184.215.14/hooks', { filter: { 'previousAttributes.status': 'todo' } }, ['task.updated']);
    const task = await newTask(project);
    await as(h.app, org.liveKey).patch(`/v1/tasks/${task}`, { title: 'renamed' });
    await as(h.app, org.liveKey).patch(`/v1/tasks/${task}`, { status: 'in_progress' });
    await as(h.app, org.liveKey).patch(`/v1/tasks/${task}`, { status: 'done' });
    await allDispatched();
    const bodies = (await h.db.delivery.findMany({ where: { webhookId: id } })).map((d) => JSON.parse(d.body).data);
    expect(bodies).toEqual([expect.objectContaining({ status: 'in_progress', previousAttributes: { status: 'todo' } })]);
  });

  it.each(
    [
      [{ priority: { $regex: 'h.*' } }, 'unknown operator $regex'],
      [{ priority: ['high'] }, 'use $in'],
      [{ priority: { $in: [] } }, 'non-empty array'],
      [{ dueDate: { $gte: 'next week' } }, 'RFC 3339'],
      [{ 'a..b': 1 }, 'dotted path'],
      [{ customFields: { team: 'x' } }, 'customFields.team'],
      [{ priority: { $exists: 'yes' } }, 'true or false'],
      ['high', 'must be of type object'],
      [{ title: 'x'.repeat(4100) }, 'at most 4096 bytes'],
    ].map(([filter, problem]) => ({ filter, problem })),
  )('refuses a malformed filter ($problem), naming filter and what is wrong', async ({ filter, problem }) => {
    const res = await as(h.app, org.liveKey).post('/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['*'], filter });
    expectError(res, 400, 'invalid_request', 'filter');
    expect(res.body.error.message).toContain(problem);
  });

  it('is shown as written, replaced by PATCH, and removed by null', async () => {
    const filter = { priority: 'high', dueDate: { $gte: '2026-12-01T00:00:00Z', $lte: '2026-12-31T23:59:59Z' } };
    const { id, body } = await subscribe('https://93.184.215.14/hooks', { filter });
    expect(body.filter).toEqual(filter);
    expectError(await as(h.app, org.liveKey).patch(`/v1/webhooks/${id}`, { filter: { priority: { $gt: 1 } } }), 400, 'invalid_request', 'filter');
    expect((await as(h.app, org.liveKey).patch(`/v1/webhooks/${id}`, { filter: null })).body.filter).toBeNull();
    const [row] = await h.db.$queryRaw<{ filterPath: string | null }[]>`SELECT "filterPath"::text AS "filterPath" FROM "Webhook" WHERE id = ${id}`;
    expect(row!.filterPath).toBeNull();
  });
});

describe('recover', () => {
  it('makes deliveries only for the events that match the filter', async () => {
    const project = await newProject();
    const target = await receiver();
    const { id } = await subscribe(target.url, { filter: { priority: 'high' } }, ['task.created']);
    const since = new Date().toISOString();
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${id}`, { status: 'disabled' });
    const high = await newTask(project, { priority: 'high' });
    await newTask(project, { priority: 'low' });
    await allDispatched();
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${id}`, { status: 'active' });
    const res = await as(h.app, org.liveKey).post(`/v1/webhooks/${id}/recover`, { since });
    expect(res.body).toEqual({ recovered: 1 });
    expect(await deliveredEvents(id)).toEqual([`task.created ${high}`]);
    expect(await receivedBy(target, 1)).toEqual([`task.created ${high}`]);
  });
});

describe('test deliveries', () => {
  it('are sent whatever the projects and filter', async () => {
    const target = await receiver();
    const { id } = await subscribe(target.url, { projectIds: [await newProject()], filter: { priority: 'high' } }, ['task.created']);
    const sent = await as(h.app, org.liveKey).post(`/v1/webhooks/${id}/test`, {});
    expect(sent.status).toBe(201);
    expect(await receivedBy(target, 1)).toEqual(['task.created tsk_sample']);
  });
});

describe('headers', () => {
  const token = `Bearer gw_${randomUUID()}`;

  it('are sent with the first attempt, every retry and a redelivery, beside the service’s own', async () => {
    const target = await receiver();
    target.replyWith({ status: 500 });
    const { id, body } = await subscribe(target.url, { headers: { Authorization: token, 'X-Route': 'tasks' } }, ['task.created']);
    expect(body.headers).toEqual({ Authorization: `****${token.slice(-4)}`, 'X-Route': '****' });
    const task = await newTask(await newProject());
    await receivedBy(target, 2);
    target.replyWith(ok);
    const delivery = await waitFor(async () => {
      const [found] = (await as(h.app, org.liveKey).get(`/v1/webhooks/${id}/deliveries`)).body.data;
      return found?.status === 'succeeded' ? found : undefined;
    });
    const attempts = target.received.length;
    expect(attempts).toBeGreaterThanOrEqual(3);
    await as(h.app, org.liveKey).post(`/v1/webhooks/${id}/deliveries/${delivery.id}/redeliver`, {});
    await receivedBy(target, attempts + 1);
    for (const received of target.received) {
      expect(received.headers).toMatchObject({
        authorization: token,
        'x-route': 'tasks',
        'x-service-delivery': delivery.id,
        'content-type': 'application/json',
      });
      expect(received.json.data.id).toBe(task);
    }
  });

  it.each(
    [
      [{ 'Content-Type': 'text/plain' }, 'reserved'],
      [{ 'X-Service-Signature': 'forged' }, 'reserved'],
      [{ 'Webhook-Id': 'x' }, 'reserved'],
      [{ host: 'elsewhere' }, 'reserved'],
      [{ 'User-Agent': 'me' }, 'reserved'],
      [{ 'Bad Name': 'x' }, 'not an HTTP token'],
      [{ 'X-A': 'x', 'x-a': 'y' }, 'named twice'],
      [{ 'X-Long': 'x'.repeat(1025) }, '1024'],
      [{ 'X-Break': 'a\r\nInjected: 1' }, 'printable ASCII'],
      [Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v'])), '10'],
    ].map(([headers, problem]) => ({ headers, problem })),
  )('refuses headers where $problem, naming headers', async ({ headers, problem }) => {
    const res = await as(h.app, org.liveKey).post('/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['*'], headers });
    expectError(res, 400, 'invalid_request', 'headers');
    expect(res.body.error.message).toContain(problem);
  });

  it('are in no column of a database dump, and PATCH null removes them', async () => {
    const secretValue = `gw_${randomUUID()}`;
    const { id } = await subscribe('https://93.184.215.14/hooks', { headers: { 'X-Gateway-Key': secretValue } });
    const dump = execFileSync('pg_dump', ['--data-only', process.env.DATABASE_URL!], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    expect(dump).toContain(id);
    expect(dump).not.toContain(secretValue);
    expect(dump).not.toContain(secretValue.slice(0, 12));
    const cleared = await as(h.app, org.liveKey).patch(`/v1/webhooks/${id}`, { headers: null });
    expect(cleared.body.headers).toBeNull();
    expect(await h.db.webhook.findUniqueOrThrow({ where: { id } })).toMatchObject({ headers: null, headersSealed: null });
  });
});

describe('the dashboard webhook form', () => {
  it('takes projects, a filter and headers, shows the headers masked, and keeps them on an edit that leaves them empty', async () => {
    const agent = await signedIn(h, { organizationId: org.organization.id, userId: org.user.id });
    const project = await newProject();
    const list = await agent.get('/dashboard/webhooks');
    const url = `https://93.184.215.14/dashboard/${randomUUID()}`;
    const form = { url, events: '*', maxConcurrency: '10', projectIds: project, filter: '{"priority": "high"}' };
    const created = await agent
      .post('/dashboard/webhooks')
      .type('form')
      .send({ ...form, headers: 'Authorization: Bearer dashboard-token-1234\nX-Route: dash', _csrf: csrfOf(list.text) });
    // Post/redirect/get: the new subscription's page, its secret shown there once.
    expect(created.status).toBe(303);
    const row = await h.db.webhook.findFirstOrThrow({ where: { url } });
    const masked = { Authorization: '****1234', 'X-Route': '****' };
    expect(row).toMatchObject({ projectIds: [project], filter: { priority: 'high' }, headers: masked });

    const detail = await agent.get(`/dashboard/webhooks/${row.id}`);
    expect(detail.text).toContain('Authorization: ****1234');
    expect(detail.text).not.toContain('dashboard-token');
    const csrf = csrfOf(detail.text);
    const widened = { ...form, projectIds: '', filter: '{"priority": {"$in": ["high", "low"]}}', headers: '', _csrf: csrf };
    expect((await agent.post(`/dashboard/webhooks/${row.id}`).type('form').send(widened)).status).toBe(303);
    expect(await h.db.webhook.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      projectIds: [],
      filter: { priority: { $in: ['high', 'low'] } },
      headers: masked,
    });

    const refused = await agent
      .post(`/dashboard/webhooks/${row.id}`)
      .type('form')
      .send({ ...widened, filter: '{"priority": {"$gt": 1}}' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('unknown operator $gt');
    const removed = await agent
      .post(`/dashboard/webhooks/${row.id}`)
      .type('form')
      .send({ ...widened, removeHeaders: 'on' });
    expect(removed.status).toBe(303);
    expect(await h.db.webhook.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ headers: null, headersSealed: null });
  });
});

import { as, createHarness, createOrg, expectError, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';
import { csrfOf, signedIn } from '@test-support/dashboard-session';
import { hashApiKey } from '../src/http/auth';

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let keyId: string;
let projectId: string;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  keyId = (await h.db.apiKey.findFirstOrThrow({ where: { hash: hashApiKey(org.liveKey) } })).id;
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'History' })).body.id;
});
afterAll(() => h.close());

const api = () => as(h.app, org.liveKey);

async function createTask(title = 'Write the post') {
  const res = await api().post('/v1/tasks', { projectId, title });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('actors', () => {
  it('names the user and the API key that caused an event, in the Events API', async () => {
    const taskId = await createTask();
    const events = await api().get('/v1/events?type=task.created&limit=100');
    const event = events.body.data.find((e: { data: { id: string } }) => e.data.id === taskId);
    expect(event.actor).toEqual({ type: 'user', userId: org.user.id, apiKeyId: keyId });
    const one = await api().get(`/v1/events/${event.id}`);
    expect(one.body.actor).toEqual({ type: 'user', userId: org.user.id, apiKeyId: keyId });
  });
});

describe('GET /v1/tasks/{taskId}/activity', () => {
  it("tells a task's history oldest first: creation, changes as {field: {from, to}}, completion and comments, each with its actor", async () => {
    const taskId = await createTask();
    expect((await api().patch(`/v1/tasks/${taskId}`, { title: 'Write the launch post', priority: 'high' })).status).toBe(200);
    expect((await api().patch(`/v1/tasks/${taskId}`, { status: 'done' })).status).toBe(200);
    const comment = await api().post(`/v1/tasks/${taskId}/comments`, { content: 'Shipped' });
    expect((await api().patch(`/v1/tasks/${taskId}/comments/${comment.body.id}`, { content: 'Shipped!' })).status).toBe(200);
    expect((await api().delete(`/v1/tasks/${taskId}/comments/${comment.body.id}`)).status).toBe(204);

    const res = await api().get(`/v1/tasks/${taskId}/activity`);
    expect(res.status).toBe(200);
    const actor = { type: 'user', userId: org.user.id, apiKeyId: keyId };
    expect(res.body.data.map((entry: { type: string; changes: unknown }) => [entry.type, entry.changes])).toEqual([
      ['task.created', null],
      ['task.updated', { title: { from: 'Write the post', to: 'Write the launch post' }, priority: { from: 'medium', to: 'high' } }],
      ['task.updated', { status: { from: 'todo', to: 'done' } }],
      ['task.completed', null],
      ['comment.created', null],
      ['comment.updated', { content: { from: 'Shipped', to: 'Shipped!' } }],
      ['comment.deleted', null],
    ]);
    for (const entry of res.body.data) expect(entry).toMatchObject({ id: expect.stringMatching(/^evt_/), actor, createdAt: expect.any(String) });
    expect(res.body.pagination.total).toBe(7);
  });

  it("tells a task's labels and parent as changes, and its relations on both of their tasks", async () => {
    const [taskId, parentId, otherId] = [await createTask(), await createTask('Launch'), await createTask('Announce')];
    const labelId = (await api().post('/v1/labels', { name: `Release ${taskId}` })).body.id as string;
    expect((await api().patch(`/v1/tasks/${taskId}`, { labelIds: [labelId] })).status).toBe(200);
    expect((await api().patch(`/v1/tasks/${taskId}`, { parentId })).status).toBe(200);
    const relation = await api().post(`/v1/tasks/${taskId}/relations`, { type: 'blocks', taskId: otherId });
    expect(relation.status).toBe(201);
    expect((await api().delete(`/v1/tasks/${otherId}/relations/${relation.body.id}`)).status).toBe(204);

    const entries = async (id: string) =>
      (await api().get(`/v1/tasks/${id}/activity`)).body.data.map((entry: { type: string; changes: unknown }) => [entry.type, entry.changes]);
    expect(await entries(taskId)).toEqual([
      ['task.created', null],
      ['task.updated', { labelIds: { from: [], to: [labelId] } }],
      ['task.updated', { parentId: { from: null, to: parentId } }],
      ['relation.created', null],
      ['relation.deleted', null],
    ]);
    expect(await entries(otherId)).toEqual([
      ['task.created', null],
      ['relation.created', null],
      ['relation.deleted', null],
    ]);
  });

  it('walks the history a page at a time with the cursor', async () => {
    const taskId = await createTask();
    for (const priority of ['low', 'high', 'medium']) await api().patch(`/v1/tasks/${taskId}`, { priority });
    const all = (await api().get(`/v1/tasks/${taskId}/activity`)).body.data.map((entry: { id: string }) => entry.id);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; pagination: { nextCursor: string | null } } } = await api().get(
        `/v1/tasks/${taskId}/activity?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      walked.push(...page.body.data.map((entry) => entry.id));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(all).toHaveLength(4);
    expect(walked).toEqual(all);
  });

  it("outlives the events' retention, and is deleted with the task", async () => {
    const taskId = await createTask();
    await api().patch(`/v1/tasks/${taskId}`, { status: 'in_progress' });
    const entryIds = async () => (await api().get(`/v1/tasks/${taskId}/activity`)).body.data.map((entry: { id: string }) => entry.id) as string[];
    const ids = await entryIds();
    expect(ids).toHaveLength(2);
    // Its events dispatched a day ago, then pruned as the worker's sweep does past the retention.
    await h.db.outboxEvent.updateMany({ where: { id: { in: ids } }, data: { dispatchedAt: new Date(Date.now() - 24 * 3600 * 1000) } });
    expect(await h.deps.unscoped.pruneDispatchedEvents(new Date(Date.now() - 3600 * 1000), 1)).toBe(2);
    expect(await entryIds()).toEqual(ids);

    expect((await api().delete(`/v1/tasks/${taskId}`)).status).toBe(204);
    expect(await h.db.taskActivity.count({ where: { taskId } })).toBe(0);
    expectError(await api().get(`/v1/tasks/${taskId}/activity`), 404, 'not_found', 'taskId');
  });

  it("answers 404 for another organization's task and 403 without tasks:read", async () => {
    const taskId = await createTask();
    expectError(await as(h.app, otherOrg.liveKey).get(`/v1/tasks/${taskId}/activity`), 404, 'not_found', 'taskId');
    expectError(await as(h.app, await keyWith(h.db, org, ['comments:read'])).get(`/v1/tasks/${taskId}/activity`), 403, 'forbidden');
  });
});

describe("the dashboard's task page", () => {
  it("tells the task's history in people's words, and names no key for a change made there", async () => {
    const taskId = await createTask('Plan the launch');
    await h.db.user.update({ where: { id: org.user.id }, data: { name: 'Ada' } });
    const agent = await signedIn(h, { organizationId: org.organization.id, userId: org.user.id });
    const page = await agent.get(`/dashboard/tasks/${taskId}`);
    const form = { _csrf: csrfOf(page.text), title: 'Plan the launch', description: '', status: 'done', priority: 'high', assigneeId: '', dueDate: '' };
    expect((await agent.post(`/dashboard/tasks/${taskId}`).type('form').send(form)).status).toBe(303);

    const activity = await api().get(`/v1/tasks/${taskId}/activity`);
    expect(activity.body.data.at(-2)).toMatchObject({ type: 'task.updated', actor: { type: 'user', userId: org.user.id, apiKeyId: null } });
    const text = (await agent.get(`/dashboard/tasks/${taskId}`)).text.replace(/<[^>]+>/g, '');
    expect(text).toContain('Ada created this task (through the API)');
    expect(text).toContain('Ada moved this to done and set the priority to high');
  });
});

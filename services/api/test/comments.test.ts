import { addMember, as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess } from '@test-support/access-checks';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let projectId: string;
let taskId: string;
let commentId: string;
/** A member-role colleague in `org`, and their key. */
let colleague: { userId: string; key: string };

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  colleague = await addMember(h.db, org, { role: 'member' });
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Discussion' })).body.id;
  taskId = await newTask(org);
  commentId = (await as(h.app, org.liveKey).post(`/v1/tasks/${taskId}/comments`, { content: 'First!' })).body.id;
});
afterAll(() => h.close());

const ctx = () => ({ harness: h, org, otherOrg });

/** A live task of `owner`: in the shared project for `org`, in a new project for any other organization. */
async function newTask(owner: TestOrg): Promise<string> {
  const project = owner === org ? projectId : (await as(h.app, owner.liveKey).post('/v1/projects', { name: 'P' })).body.id;
  const res = await as(h.app, owner.liveKey).post('/v1/tasks', { title: 'Talk about it', projectId: project });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function comment(key: string, onTask: string, body: object = { content: 'A comment' }) {
  const res = await as(h.app, key).post(`/v1/tasks/${onTask}/comments`, body);
  expect(res.status).toBe(201);
  return res.body as { id: string; content: string; mentions: string[]; createdAt: string; updatedAt: string };
}

const commentPath = (id: string, onTask = taskId) => `/v1/tasks/${onTask}/comments/${id}`;

describe('GET /v1/tasks/{taskId}/comments', () => {
  let thread: string;
  let oldestFirst: string[];

  beforeAll(async () => {
    thread = await newTask(org);
    const created: string[] = [];
    for (const content of ['one', 'two', 'three']) created.push((await comment(org.liveKey, thread, { content })).id);
    oldestFirst = [...created].sort();
  });

  itEnforcesAccess(ctx, () => ({ method: 'get', path: `/v1/tasks/${taskId}/comments`, permission: 'comments:read' }), { namesResource: true });

  it("lists the task's comments oldest first in the pagination envelope", async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/tasks/${thread}/comments`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(oldestFirst);
    expect(res.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, hasMore: false, nextCursor: null });
  });

  it('pages with limit and offset', async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/tasks/${thread}/comments?limit=1&offset=1`);
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([oldestFirst[1]]);
    expect(res.body.pagination).toEqual({ total: 3, limit: 1, offset: 1, hasMore: true, nextCursor: expect.any(String) });
  });

  it('answers 404 naming taskId for an unknown task', async () => {
    expectError(await as(h.app, org.liveKey).get('/v1/tasks/tsk_missing/comments'), 404, 'not_found', 'taskId');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['offset=-1', 'offset'],
    ['authorId=usr_x', 'authorId'],
  ])('refuses ?%s naming %s', async (query, param) => {
    expectError(await as(h.app, org.liveKey).get(`/v1/tasks/${thread}/comments?${query}`), 400, 'invalid_request', param);
  });
});

describe('POST /v1/tasks/{taskId}/comments', () => {
  itEnforcesAccess(ctx, () => ({ method: 'post', path: `/v1/tasks/${taskId}/comments`, permission: 'comments:write', body: { content: 'x' } }), {
    namesResource: true,
  });

  it('answers 201 with exactly the comment record', async () => {
    const res = await as(h.app, org.liveKey).post(`/v1/tasks/${taskId}/comments`, { content: 'Ping @colleague', mentions: [colleague.userId] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cmt_[0-9A-Z]{26}$/),
      taskId,
      authorId: org.user.id,
      content: 'Ping @colleague',
      mentions: [colleague.userId],
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect((await as(h.app, org.liveKey).get(commentPath(res.body.id))).body).toEqual(res.body);
  });

  it('defaults mentions to an empty list and accepts 10000 characters of content', async () => {
    const res = await as(h.app, org.liveKey).post(`/v1/tasks/${taskId}/comments`, { content: 'x'.repeat(10_000) });
    expect(res.status).toBe(201);
    expect(res.body.mentions).toEqual([]);
    expect(res.body.content).toHaveLength(10_000);
  });

  it.each([
    [{}, 'content'],
    [{ content: '' }, 'content'],
    [{ content: 'x'.repeat(10_001) }, 'content'],
    [{ content: 7 }, 'content'],
    [{ content: 'x', mentions: 'usr_x' }, 'mentions'],
    [{ content: 'x', mentions: ['usr_nobody'] }, 'mentions'],
    [{ content: 'x', body: 'typo' }, 'body'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).post(`/v1/tasks/${taskId}/comments`, body), 400, 'invalid_request', param);
  });

  it('refuses to mention a member of another organization', async () => {
    expectError(
      await as(h.app, org.liveKey).post(`/v1/tasks/${taskId}/comments`, { content: 'x', mentions: [otherOrg.user.id] }),
      400,
      'invalid_request',
      'mentions',
    );
  });

  it('answers 404 naming taskId for an unknown task and for a task of another organization', async () => {
    const foreignTask = await newTask(otherOrg);
    expectError(await as(h.app, org.liveKey).post('/v1/tasks/tsk_missing/comments', { content: 'x' }), 404, 'not_found', 'taskId');
    expectError(await as(h.app, org.liveKey).post(`/v1/tasks/${foreignTask}/comments`, { content: 'x' }), 404, 'not_found', 'taskId');
    expect(await h.db.comment.count({ where: { taskId: foreignTask } })).toBe(0);
  });
});

describe('GET /v1/tasks/{taskId}/comments/{commentId}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'get', path: commentPath(commentId), permission: 'comments:read' }), { namesResource: true });

  it('returns the comment', async () => {
    const res = await as(h.app, org.liveKey).get(commentPath(commentId));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: commentId, taskId, authorId: org.user.id, content: 'First!', mentions: [] });
  });

  it('answers 404 naming commentId for an unknown comment and for a comment under another task', async () => {
    const otherTask = await newTask(org);
    expectError(await as(h.app, org.liveKey).get(commentPath('cmt_missing')), 404, 'not_found', 'commentId');
    expectError(await as(h.app, org.liveKey).get(commentPath(commentId, otherTask)), 404, 'not_found', 'commentId');
  });
});

describe('PATCH /v1/tasks/{taskId}/comments/{commentId}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'patch', path: commentPath(commentId), permission: 'comments:write', body: { content: 'Edited' } }), {
    namesResource: true,
  });

  it('lets the author edit content and mentions; updatedAt moves', async () => {
    const own = await comment(colleague.key, taskId, { content: 'Draft' });
    const res = await as(h.app, colleague.key).patch(commentPath(own.id), { content: 'Final', mentions: [org.user.id] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...own, content: 'Final', mentions: [org.user.id], updatedAt: expect.stringMatching(ISO) });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(own.updatedAt));
  });

  it('refuses a member who is not the author with 403', async () => {
    const theirs = await comment(org.liveKey, taskId, { content: "Admin's words" });
    expectError(await as(h.app, colleague.key).patch(commentPath(theirs.id), { content: 'Hijacked' }), 403, 'forbidden');
    expect((await as(h.app, org.liveKey).get(commentPath(theirs.id))).body.content).toBe("Admin's words");
  });

  it("lets an admin edit anyone's comment", async () => {
    const theirs = await comment(colleague.key, taskId, { content: 'Typo teh' });
    const res = await as(h.app, org.liveKey).patch(commentPath(theirs.id), { content: 'Typo the' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content: 'Typo the', authorId: colleague.userId });
  });

  it.each([
    [{ content: '' }, 'content'],
    [{ content: 'x'.repeat(10_001) }, 'content'],
    [{ mentions: ['usr_nobody'] }, 'mentions'],
    [{ authorId: 'usr_x' }, 'authorId'],
  ])('refuses %j naming %s', async (body, param) => {
    expectError(await as(h.app, org.liveKey).patch(commentPath(commentId), body), 400, 'invalid_request', param);
  });

  it('answers 404 naming commentId for an unknown comment', async () => {
    expectError(await as(h.app, org.liveKey).patch(commentPath('cmt_missing'), { content: 'x' }), 404, 'not_found', 'commentId');
  });
});

describe('DELETE /v1/tasks/{taskId}/comments/{commentId}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'delete', path: commentPath(commentId), permission: 'comments:write' }), { namesResource: true });

  it('lets the author delete with 204 and no body; the comment is then unknown', async () => {
    const own = await comment(colleague.key, taskId);
    const res = await as(h.app, colleague.key).delete(commentPath(own.id));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectError(await as(h.app, org.liveKey).get(commentPath(own.id)), 404, 'not_found', 'commentId');
    expectError(await as(h.app, colleague.key).delete(commentPath(own.id)), 404, 'not_found', 'commentId');
  });

  it('refuses a member who is not the author with 403', async () => {
    const theirs = await comment(org.liveKey, taskId);
    expectError(await as(h.app, colleague.key).delete(commentPath(theirs.id)), 403, 'forbidden');
    expect((await as(h.app, org.liveKey).get(commentPath(theirs.id))).status).toBe(200);
  });

  it("lets an admin delete anyone's comment", async () => {
    const theirs = await comment(colleague.key, taskId);
    expect((await as(h.app, org.liveKey).delete(commentPath(theirs.id))).status).toBe(204);
  });
});

describe('a deleted task', () => {
  it('takes its comments with it', async () => {
    const doomed = await newTask(org);
    await comment(org.liveKey, doomed);
    await comment(colleague.key, doomed);
    expect(await h.db.comment.count({ where: { taskId: doomed } })).toBe(2);
    await as(h.app, org.liveKey).delete(`/v1/tasks/${doomed}`).expect(204);
    expect(await h.db.comment.count({ where: { taskId: doomed } })).toBe(0);
    expectError(await as(h.app, org.liveKey).get(`/v1/tasks/${doomed}/comments`), 404, 'not_found', 'taskId');
  });
});

describe('comment events in the outbox', () => {
  it('records comment.created, comment.updated with previousAttributes, and comment.deleted as it was', async () => {
    const owner = await createOrg(h.db);
    const thread = await newTask(owner);
    const api = as(h.app, owner.liveKey);
    const created = await comment(owner.liveKey, thread, { content: 'Before' });
    const updated = (await api.patch(`/v1/tasks/${thread}/comments/${created.id}`, { content: 'After', mentions: [owner.user.id] })).body;
    await api.delete(`/v1/tasks/${thread}/comments/${created.id}`).expect(204);

    const rows = await h.db.outboxEvent.findMany({
      where: { organizationId: owner.organization.id, type: { startsWith: 'comment.' } },
      orderBy: { id: 'asc' },
    });
    expect(rows.map((r) => ({ type: r.type, mode: r.mode, data: r.data }))).toEqual([
      { type: 'comment.created', mode: 'live', data: created },
      { type: 'comment.updated', mode: 'live', data: { ...updated, previousAttributes: { content: 'Before', mentions: [] } } },
      { type: 'comment.deleted', mode: 'live', data: updated },
    ]);
  });

  it('records no event for a PATCH that changes nothing', async () => {
    const owner = await createOrg(h.db);
    const thread = await newTask(owner);
    const created = await comment(owner.liveKey, thread, { content: 'Same' });
    await as(h.app, owner.liveKey).patch(`/v1/tasks/${thread}/comments/${created.id}`, { content: 'Same' }).expect(200);
    expect(await h.db.outboxEvent.count({ where: { organizationId: owner.organization.id, type: 'comment.updated' } })).toBe(0);
  });

  it('records test-mode comments as test-mode events', async () => {
    const owner = await createOrg(h.db);
    const testProject = (await as(h.app, owner.testKey).post('/v1/projects', { name: 'Sandbox' })).body.id;
    const testTask = (await as(h.app, owner.testKey).post('/v1/tasks', { title: 'T', projectId: testProject })).body.id;
    await comment(owner.testKey, testTask);
    const row = await h.db.outboxEvent.findFirstOrThrow({ where: { organizationId: owner.organization.id, type: 'comment.created' } });
    expect(row.mode).toBe('test');
  });
});

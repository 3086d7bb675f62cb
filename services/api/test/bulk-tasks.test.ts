import fc from 'fast-check';
import { addMember, as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess } from '@test-support/access-checks';

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let projectId: string;
let memberId: string;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Bulk' })).body.id;
  memberId = (await addMember(h.db, org)).userId;
});
afterAll(() => h.close());

const ctx = () => ({ harness: h, org, otherOrg });
const bulk = (operations: object[], key = org.liveKey) => as(h.app, key).post('/v1/tasks/bulk', { operations });
const createTask = async (title: string) => (await as(h.app, org.liveKey).post('/v1/tasks', { title, projectId })).body.id as string;

/** What a bulk could change: the organization's tasks and outbox rows. */
async function snapshot(organizationId = org.organization.id) {
  return {
    tasks: await h.db.task.findMany({ where: { organizationId }, orderBy: { id: 'asc' } }),
    events: await h.db.outboxEvent.count({ where: { organizationId } }),
  };
}

describe('POST /v1/tasks/bulk', () => {
  itEnforcesAccess(
    ctx,
    () => ({ method: 'post', path: '/v1/tasks/bulk', permission: 'tasks:write', body: { operations: [{ op: 'create', data: { title: 'x', projectId } }] } }),
    {
      namesResource: false,
    },
  );

  it('applies creates, updates and deletes, answering in item order and emitting the single operations’ events in item order', async () => {
    const [updated, deleted] = [await createTask('To update'), await createTask('To delete')];
    const since = await h.db.outboxEvent.count({ where: { organizationId: org.organization.id } });
    const res = await bulk([
      { op: 'create', data: { title: 'One', projectId, assigneeId: memberId } },
      { op: 'update', id: updated, data: { status: 'done' } },
      { op: 'delete', id: deleted },
      {
        op: 'create',
        data: {
          title: 'Two',
          projectId,
          priority: 'high',
          description: 'Described',
          dueDate: '2026-12-01T10:00:00.000Z',
          customFields: { points: 3, team: 'core' },
        },
      },
    ]);
    expect(res.status).toBe(200);
    const { results } = res.body;
    expect(results.map((r: { index: number; op: string }) => [r.index, r.op])).toEqual([
      [0, 'create'],
      [1, 'update'],
      [2, 'delete'],
      [3, 'create'],
    ]);
    expect(results[0].task).toMatchObject({ id: results[0].id, title: 'One', assigneeId: memberId, creatorId: org.user.id });
    expect(results[1]).toMatchObject({ id: updated, task: { id: updated, status: 'done' } });
    expect(results[2]).toEqual({ index: 2, op: 'delete', id: deleted, task: null });
    expect(results[3].task).toMatchObject({ title: 'Two', priority: 'high', dueDate: '2026-12-01T10:00:00.000Z', customFields: { points: 3, team: 'core' } });

    // The single operations answer the same records.
    expect((await as(h.app, org.liveKey).get(`/v1/tasks/${results[0].id}`)).body).toEqual(results[0].task);
    expect((await as(h.app, org.liveKey).get(`/v1/tasks/${updated}`)).body).toEqual(results[1].task);
    expect((await as(h.app, org.liveKey).get(`/v1/tasks/${results[3].id}`)).body).toEqual(results[3].task);
    expectError(await as(h.app, org.liveKey).get(`/v1/tasks/${deleted}`), 404, 'not_found');

    const emitted = await h.db.outboxEvent.findMany({ where: { organizationId: org.organization.id }, orderBy: { id: 'asc' }, skip: since });
    expect(emitted.every((e) => (e.actor as { userId?: string }).userId === org.user.id)).toBe(true);
    expect(emitted.map((e) => [e.type, (e.data as { id?: string }).id])).toEqual([
      ['task.created', results[0].id],
      ['task.updated', updated],
      ['task.completed', updated],
      ['task.deleted', deleted],
      ['task.created', results[3].id],
    ]);
    // The Events API lists them newest first: the reverse of item order.
    const listed = (await as(h.app, org.liveKey).get('/v1/events?limit=5')).body.data;
    expect(listed.map((e: { type: string }) => e.type)).toEqual(['task.created', 'task.deleted', 'task.completed', 'task.updated', 'task.created']);
  });

  it('applies nothing when one item of 100 fails, and names it by index', async () => {
    const before = await snapshot();
    const operations = Array.from({ length: 100 }, (_, i) => ({ op: 'create', data: { title: `Item ${i}`, projectId } }));
    operations[57] = {
      op: 'create',
      data: { title: 'Foreign project', projectId: (await as(h.app, otherOrg.liveKey).post('/v1/projects', { name: 'Theirs' })).body.id },
    };
    const res = await bulk(operations);
    expectError(res, 400, 'invalid_request', 'operations.57.data.projectId');
    expect(res.body.error.errors).toEqual([
      { index: 57, code: 'invalid_request', param: 'data.projectId', message: 'projectId must name a project of the organization' },
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('names every failing item, answering with the first one’s status, and applies nothing', async () => {
    const [kept, archived] = [await createTask('Kept'), (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Old' })).body.id];
    await as(h.app, org.liveKey).patch(`/v1/projects/${archived}`, { archived: true });
    const theirs = (
      await as(h.app, otherOrg.liveKey).post('/v1/tasks', {
        title: 'Theirs',
        projectId: (await as(h.app, otherOrg.liveKey).post('/v1/projects', { name: 'P' })).body.id,
      })
    ).body.id;
    const before = await snapshot();
    const res = await bulk([
      { op: 'delete', id: theirs },
      { op: 'create', data: { title: '', projectId } },
      { op: 'update', id: kept, data: { title: 'Fine' } },
      { op: 'create', data: { title: 'Archived', projectId: archived } },
      { op: 'update', id: kept, data: { assigneeId: otherOrg.user.id } },
      { op: 'update', id: kept, data: { colour: 'red' } },
      { op: 'create', id: kept, data: { title: 'x', projectId } },
      { op: 'delete', id: kept, data: {} },
      { op: 'update', data: { title: 'No id' } },
    ]);
    expectError(res, 404, 'not_found', 'operations.0.id');
    expect(res.body.error.errors).toEqual([
      { index: 0, code: 'not_found', param: 'id', message: 'No such task' },
      { index: 1, code: 'invalid_request', param: 'data.title', message: expect.any(String) },
      { index: 3, code: 'invalid_request', param: 'data.projectId', message: 'The project is archived; unarchive it first' },
      { index: 4, code: 'invalid_request', param: 'data.assigneeId', message: 'assigneeId must name members of the organization' },
      { index: 5, code: 'invalid_request', param: 'data.colour', message: 'Unknown field: colour' },
      { index: 6, code: 'invalid_request', param: 'id', message: 'A create takes no id' },
      { index: 7, code: 'invalid_request', param: 'data', message: 'Unknown field: data' },
      { index: 8, code: 'invalid_request', param: 'id', message: 'Missing required field: id' },
    ]);
    expect(await snapshot()).toEqual(before);
    expect(await snapshot(otherOrg.organization.id)).toMatchObject({ tasks: [{ id: theirs }] });
  });

  it('names by index the items whose labels or parent are refused, creates and updates alike, and applies nothing', async () => {
    const [kept, ours] = [await createTask('Kept'), (await as(h.app, org.liveKey).post('/v1/labels', { name: 'Bulk ours' })).body.id];
    const theirLabel = (await as(h.app, otherOrg.liveKey).post('/v1/labels', { name: 'Bulk theirs' })).body.id;
    const theirTask = (
      await as(h.app, otherOrg.liveKey).post('/v1/tasks', {
        title: 'Their parent',
        projectId: (await as(h.app, otherOrg.liveKey).post('/v1/projects', { name: 'P' })).body.id,
      })
    ).body.id;
    const elsewhere = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Elsewhere' })).body.id;
    const otherProjectTask = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Elsewhere', projectId: elsewhere })).body.id;
    const before = await snapshot();
    const res = await bulk([
      { op: 'create', data: { title: 'Labelled', projectId, labelIds: [ours] } },
      { op: 'create', data: { title: 'Foreign label', projectId, labelIds: [ours, theirLabel] } },
      { op: 'create', data: { title: 'Plain', projectId } },
      { op: 'create', data: { title: 'Foreign parent', projectId, parentId: theirTask } },
      { op: 'update', id: kept, data: { labelIds: [theirLabel] } },
      { op: 'update', id: kept, data: { parentId: otherProjectTask } },
      { op: 'create', data: { title: 'Child', projectId, parentId: kept } },
    ]);
    expectError(res, 400, 'invalid_request', 'operations.1.data.labelIds');
    expect(res.body.error.errors).toEqual([
      { index: 1, code: 'invalid_request', param: 'data.labelIds', message: 'labelIds must name labels of the organization' },
      { index: 3, code: 'invalid_request', param: 'data.parentId', message: 'parentId must be a task of the same project' },
      { index: 4, code: 'invalid_request', param: 'data.labelIds', message: 'labelIds must name labels of the organization' },
      { index: 5, code: 'invalid_request', param: 'data.parentId', message: 'parentId must be a task of the same project' },
    ]);
    expect(await snapshot()).toEqual(before);
    // The single operations refuse the same items with the same field.
    expectError(await as(h.app, org.liveKey).post('/v1/tasks', { title: 'x', projectId, labelIds: [theirLabel] }), 400, 'invalid_request', 'labelIds');
    expectError(await as(h.app, org.liveKey).post('/v1/tasks', { title: 'x', projectId, parentId: theirTask }), 400, 'invalid_request', 'parentId');
  });

  it('applies its items in item order: a create under a task that an earlier item deleted is refused, as it is one by one', async () => {
    const [deleted, kept] = [await createTask('Deleted parent'), await createTask('Kept parent')];
    const before = await snapshot();
    const refused = await bulk([
      { op: 'delete', id: deleted },
      { op: 'create', data: { title: 'Orphan', projectId, parentId: deleted } },
    ]);
    expectError(refused, 400, 'invalid_request', 'operations.1.data.parentId');
    expect(refused.body.error.errors).toEqual([{ index: 1, code: 'invalid_request', param: 'data.parentId', message: expect.any(String) }]);
    expect(await snapshot()).toEqual(before);

    // The other way round, the child is made, then detached by its parent's deletion.
    const res = await bulk([
      { op: 'create', data: { title: 'Child', projectId, parentId: kept } },
      { op: 'delete', id: kept },
    ]);
    expect(res.status).toBe(200);
    expect((await as(h.app, org.liveKey).get(`/v1/tasks/${res.body.results[0].id}`)).body).toMatchObject({ title: 'Child', parentId: null });
  });

  it('refuses items of the other mode as the single operations do (a task 404, a project 400), applying nothing', async () => {
    const live = await createTask('Live');
    const testKey = org.testKey;
    const testProject = (await as(h.app, testKey).post('/v1/projects', { name: 'Test mode' })).body.id;
    const before = await snapshot();
    const res = await bulk(
      [
        { op: 'create', data: { title: 'In a test project', projectId: testProject } },
        { op: 'update', id: live, data: { title: 'From test' } },
        { op: 'create', data: { title: 'In a live project', projectId } },
        { op: 'delete', id: live },
      ],
      testKey,
    );
    expectError(res, 404, 'not_found', 'operations.1.id');
    const otherModeProject = 'That project is a live project and this is a test key: use a live key, or one of the test projects';
    expect(res.body.error.errors).toEqual([
      { index: 1, code: 'not_found', param: 'id', message: 'No such task' },
      { index: 2, code: 'invalid_request', param: 'data.projectId', message: otherModeProject },
      { index: 3, code: 'not_found', param: 'id', message: 'No such task' },
    ]);
    expect(await snapshot()).toEqual(before);
    expectError(await as(h.app, testKey).patch(`/v1/tasks/${live}`, { title: 'From test' }), 404, 'not_found', 'taskId');
    const single = await as(h.app, testKey).post('/v1/tasks', { title: 'In a live project', projectId });
    expectError(single, 400, 'invalid_request', 'projectId');
    expect(single.body.error.message).toBe(otherModeProject);
  });

  it.each([
    ['an empty list', [], 'operations'],
    ['more than 100 operations', Array.from({ length: 101 }, () => ({ op: 'delete', id: 'tsk_x' })), 'operations'],
    ['an unknown op', [{ op: 'upsert', id: 'tsk_x' }], 'operations.0.op'],
    ['an unknown item field', [{ op: 'delete', id: 'tsk_x', mode: 'test' }], 'operations.0.mode'],
  ])('refuses %s with 400, applying nothing', async (_case, operations, param) => {
    const before = await snapshot();
    expectError(await bulk(operations), 400, 'invalid_request', param);
    expect(await snapshot()).toEqual(before);
  });

  it('counts as its operations against the daily quota, and is refused whole when they do not fit', async () => {
    const small = await createOrg(h.db, { plan: 'enterprise', dailyQuota: 10 });
    const project = (await as(h.app, small.liveKey).post('/v1/projects', { name: 'Q' })).body.id;
    const creates = (n: number) => Array.from({ length: n }, (_, i) => ({ op: 'create', data: { title: `Q${i}`, projectId: project } }));
    const first = await bulk(creates(6), small.liveKey);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-remaining']).toBe('3');

    const before = await snapshot(small.organization.id);
    const refused = await bulk(creates(4), small.liveKey);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Only the refused request itself was counted.
    expect(refused.headers['x-ratelimit-remaining']).toBe('2');
    expect(await snapshot(small.organization.id)).toEqual(before);

    const fits = await bulk(creates(2), small.liveKey);
    expect(fits.status).toBe(200);
    expect(fits.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('replays an Idempotency-Key without applying or emitting anything twice', async () => {
    const operations = [
      { op: 'create', data: { title: 'Once', projectId } },
      { op: 'create', data: { title: 'Twice?', projectId } },
    ];
    const send = () => as(h.app, org.liveKey).post('/v1/tasks/bulk', { operations }).set('Idempotency-Key', 'bulk-replay-1');
    const first = await send();
    const after = await snapshot();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await snapshot()).toEqual(after);
    const other = await as(h.app, org.liveKey)
      .post('/v1/tasks/bulk', { operations: operations.slice(1) })
      .set('Idempotency-Key', 'bulk-replay-1');
    expectError(other, 409, 'conflict');
  });
});

describe('a bulk request against the single operations', () => {
  type Op =
    | { op: 'create'; title: string; status: string; assigned: boolean; parent?: number }
    | { op: 'update'; seed: number; status?: string; priority?: string }
    | { op: 'delete'; seed: number };
  const SEEDS = 4;
  const status = fc.constantFrom('todo', 'in_progress', 'done');
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      op: fc.constant('create' as const),
      title: fc.string({ minLength: 1, maxLength: 20 }).filter((t) => t.trim().length > 0),
      status,
      assigned: fc.boolean(),
      parent: fc.option(fc.nat(SEEDS - 1), { nil: undefined }),
    }),
    fc.record({
      op: fc.constant('update' as const),
      seed: fc.nat(SEEDS - 1),
      status: fc.option(status, { nil: undefined }),
      priority: fc.option(fc.constantFrom('low', 'medium', 'high'), { nil: undefined }),
    }),
    fc.record({ op: fc.constant('delete' as const), seed: fc.nat(SEEDS - 1) }),
  );

  /** A fresh project with its seed tasks; the item each op becomes there. */
  async function world() {
    const project = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'World' })).body.id as string;
    const seeds: string[] = [];
    for (let i = 0; i < SEEDS; i += 1) seeds.push((await as(h.app, org.liveKey).post('/v1/tasks', { title: `seed ${i}`, projectId: project })).body.id);
    const item = (o: Op): { op: string; id?: string; data?: object } => {
      if (o.op === 'create') {
        const data = { title: o.title, projectId: project, status: o.status, assigneeId: o.assigned ? memberId : null };
        return { op: 'create', data: o.parent === undefined ? data : { ...data, parentId: seeds[o.parent]! } };
      }
      if (o.op === 'update')
        return { op: 'update', id: seeds[o.seed]!, data: { ...(o.status && { status: o.status }), ...(o.priority && { priority: o.priority }) } };
      return { op: 'delete', id: seeds[o.seed]! };
    };
    const state = async () => {
      const tasks = await h.db.task.findMany({ where: { projectId: project }, orderBy: { id: 'asc' } });
      return tasks.map((t) => ({
        seed: seeds.indexOf(t.id),
        title: t.title,
        status: t.status,
        priority: t.priority,
        assigneeId: t.assigneeId,
        parent: t.parentId && seeds.indexOf(t.parentId),
      }));
    };
    return { item, state };
  }

  it('leaves the same tasks as the same items applied one by one (or, when one of those fails, none changed)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        const [single, batched] = [await world(), await world()];
        let failed = false;
        for (const o of ops.map(single.item)) {
          const res =
            o.op === 'create'
              ? await as(h.app, org.liveKey).post('/v1/tasks', o.data!)
              : o.op === 'update'
                ? await as(h.app, org.liveKey).patch(`/v1/tasks/${o.id}`, o.data!)
                : await as(h.app, org.liveKey).delete(`/v1/tasks/${o.id}`);
          failed ||= res.status >= 400;
        }
        const before = await batched.state();
        const res = await bulk(ops.map(batched.item));
        expect(res.status === 200).toBe(!failed);
        expect(await batched.state()).toEqual(failed ? before : await single.state());
      }),
      { numRuns: 12 },
    );
  });
});

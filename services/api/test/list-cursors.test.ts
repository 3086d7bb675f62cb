import type { TaskRecord } from '@worktrack/events';
import { loadApiConfig } from '@worktrack/config';
import { newId } from '@worktrack/db';
import { apiRoutes } from '../src/routes';
import { addMember, as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';
import { seedTasks, TITLE_WORDS } from '@test-support/seed-tasks';
import { inOrder, SORT_FIELDS } from '@test-support/list-reference';
import { walk } from '@test-support/list-walk';

const TASKS = 3_000;

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let projectId: string;

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Big' })).body.id;
  const members = await Promise.all([addMember(h.db, org), addMember(h.db, org)]);
  await seedTasks(h.db, { organizationId: org.organization.id, projectId, creatorId: org.user.id, assignees: members.map((m) => m.userId), count: TASKS });
}, 60_000);
afterAll(() => h.close());

/** Creates and edits tasks of the project until told to stop; returns the ids of the tasks it edited. */
async function writeUntil(stopped: () => boolean, existing: string[]): Promise<Set<string>> {
  const api = as(h.app, org.liveKey);
  const edited = new Set<string>();
  for (let n = 0; !stopped(); n++) {
    const created = await api.post('/v1/tasks', {
      projectId,
      title: `${TITLE_WORDS[n % TITLE_WORDS.length]} inserted ${n}`,
      priority: ['low', 'medium', 'high'][n % 3],
      status: ['todo', 'in_progress', 'done'][n % 3],
      dueDate: n % 4 === 0 ? null : new Date(Date.UTC(2027, 0, 1 + (n % 9))).toISOString(),
    });
    expect(created.status).toBe(201);
    const victim = existing[(n * 7919) % existing.length]!;
    // A change that moves the task in no order but updatedAt's.
    expect((await api.patch(`/v1/tasks/${victim}`, { description: `edited ${n}` })).status).toBe(200);
    edited.add(victim);
  }
  return edited;
}

describe('GET /v1/tasks with cursors while tasks are created and edited', () => {
  const orders = SORT_FIELDS.flatMap((field) => [false, true].map((descending) => ({ field, descending })));

  it.each(orders)(
    'walks a project of 3,000 tasks by $field (descending: $descending)',
    async ({ field, descending }) => {
      const sort = `${descending ? '-' : ''}${field}`;
      const before = (await h.db.task.findMany({ where: { projectId }, select: { id: true } })).map((t) => t.id);
      let done = false;
      const [seen, edited] = await Promise.all([
        walk<TaskRecord>(h.app, org.liveKey, '/v1/tasks', `projectId=${projectId}&sort=${sort}`).finally(() => (done = true)),
        writeUntil(() => done, before),
      ]);
      expect(edited.size).toBeGreaterThan(0);

      // In order from the first record to the last, across pages written to meanwhile.
      const compare = inOrder(field, descending);
      expect(seen.findIndex((task, i) => i > 0 && compare(seen[i - 1]!, task) >= 0)).toBe(-1);

      const sightings = new Map<string, TaskRecord[]>();
      for (const task of seen) sightings.set(task.id, [...(sightings.get(task.id) ?? []), task]);
      const twice = [...sightings].filter(([, versions]) => versions.length > 1);
      const missed = before.filter((id) => !sightings.has(id));
      if (field !== 'updatedAt') {
        // Every task of the start exactly once; a task created meanwhile at most once.
        expect({ twice: twice.length, missed: missed.length }).toEqual({ twice: 0, missed: 0 });
      } else if (!descending) {
        // An edit moves a task to the end of the walk: an edited task may come again (its new
        // version, once), none is missed.
        expect(missed).toEqual([]);
        for (const [id, versions] of twice) {
          expect(edited.has(id)).toBe(true);
          expect(new Set(versions.map((v) => v.updatedAt)).size).toBe(versions.length);
        }
      } else {
        // An edit moves a task behind the walk: only edited tasks may be missed, none comes twice.
        expect(twice).toEqual([]);
        expect(missed.filter((id) => !edited.has(id))).toEqual([]);
      }
    },
    60_000,
  );
});

describe('cursors', () => {
  const firstPage = async (key = org.liveKey, query = `projectId=${projectId}&sort=title`) => {
    const res = await as(h.app, key).get(`/v1/tasks?${query}&limit=5`);
    expect(res.status).toBe(200);
    return res.body.pagination.nextCursor as string;
  };
  const next = (cursor: string, key = org.liveKey, query = `projectId=${projectId}&sort=title`) =>
    as(h.app, key).get(`/v1/tasks?${query}&limit=5&cursor=${encodeURIComponent(cursor)}`);

  it('are opaque: no sort value or id shows in them', async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/tasks?projectId=${projectId}&sort=title&limit=5`);
    const cursor: string = res.body.pagination.nextCursor;
    const last = res.body.data[4];
    expect(cursor).toMatch(/^[\w-]+$/);
    expect(Buffer.from(cursor, 'base64url').toString('latin1')).not.toContain(last.id);
    expect(Buffer.from(cursor, 'base64url').toString('utf8')).not.toContain(last.title);
  });

  it('refuse a forged or altered cursor', async () => {
    const cursor = await firstPage();
    const altered = `${cursor.slice(0, 20)}${cursor[20] === 'A' ? 'B' : 'A'}${cursor.slice(21)}`;
    for (const forged of [altered, 'abc', Buffer.from(JSON.stringify({ value: 'a', id: 'tsk_1', offset: 0 })).toString('base64url'), cursor.slice(0, -4)]) {
      expectError(await next(forged), 400, 'invalid_request', 'cursor');
    }
    expectError(await as(h.app, org.liveKey).get(`/v1/tasks?cursor=`), 400, 'invalid_request', 'cursor');
  });

  it("refuse another organization's cursor, and a test key's on live data", async () => {
    const cursor = await firstPage();
    expectError(await next(cursor, otherOrg.liveKey), 400, 'invalid_request', 'cursor');
    expectError(await next(cursor, org.testKey), 400, 'invalid_request', 'cursor');
  });

  it('refuse a cursor made for other filters, another sort or another list', async () => {
    const cursor = await firstPage();
    expectError(await next(cursor, org.liveKey, `projectId=${projectId}&sort=-title`), 400, 'invalid_request', 'cursor');
    expectError(await next(cursor, org.liveKey, `projectId=${projectId}&sort=title&status=todo`), 400, 'invalid_request', 'cursor');
    expectError(await next(cursor, org.liveKey, 'sort=title'), 400, 'invalid_request', 'cursor');
    expectError(await as(h.app, org.liveKey).get(`/v1/projects?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_request', 'cursor');
    // The same filters in another order of the query string are the same list.
    expect((await next(cursor, org.liveKey, `sort=title&projectId=${projectId}`)).status).toBe(200);
  });

  it('hold across API replicas sharing CURSOR_SECRET, and only there', async () => {
    const secret = 'a-shared-cursor-secret-of-32-chars-or-more';
    const [replicaA, replicaB, stranger] = [
      createHarness({ CURSOR_SECRET: secret }),
      createHarness({ CURSOR_SECRET: secret }),
      createHarness({ CURSOR_SECRET: `${secret}!` }),
    ];
    try {
      const cursor = (await as(replicaA.app, org.liveKey).get(`/v1/tasks?projectId=${projectId}&limit=5`)).body.pagination.nextCursor;
      const page = `/v1/tasks?projectId=${projectId}&limit=5&cursor=${encodeURIComponent(cursor)}`;
      expect((await as(replicaB.app, org.liveKey).get(page)).status).toBe(200);
      expectError(await as(stranger.app, org.liveKey).get(page), 400, 'invalid_request', 'cursor');
    } finally {
      await Promise.all([replicaA.close(), replicaB.close(), stranger.close()]);
    }
  });

  it('exclude offset, and sort takes one known field', async () => {
    const cursor = await firstPage();
    expectError(
      await as(h.app, org.liveKey).get(`/v1/tasks?projectId=${projectId}&sort=title&offset=0&cursor=${encodeURIComponent(cursor)}`),
      400,
      'invalid_request',
      'cursor',
    );
    for (const sort of ['colour', '-colour', 'title,-status', '--title', 'Title', 'id', '']) {
      expectError(await as(h.app, org.liveKey).get(`/v1/tasks?sort=${encodeURIComponent(sort)}`), 400, 'invalid_request', 'sort');
    }
  });

  it('continue from an offset page', async () => {
    const query = `projectId=${projectId}&sort=-priority`;
    const all = await walk<TaskRecord>(h.app, org.liveKey, '/v1/tasks', query, 100);
    const page = await as(h.app, org.liveKey).get(`/v1/tasks?${query}&limit=7&offset=30`);
    expect(page.body.data.map((t: TaskRecord) => t.id)).toEqual(all.slice(30, 37).map((t) => t.id));
    const after = await as(h.app, org.liveKey).get(`/v1/tasks?${query}&limit=7&cursor=${encodeURIComponent(page.body.pagination.nextCursor)}`);
    expect(after.body.pagination.offset).toBe(37);
    expect(after.body.data.map((t: TaskRecord) => t.id)).toEqual(all.slice(37, 44).map((t) => t.id));
  });
});

describe('every list', () => {
  /** One organization with a few records of every kind, created a few in the same millisecond. */
  let owner: TestOrg;
  const params: Record<string, string> = {};

  beforeAll(async () => {
    owner = await createOrg(h.db);
    const api = as(h.app, owner.liveKey);
    const projects: string[] = [];
    for (const name of ['beta', 'Alpha', 'alpha', 'Éclair', 'zeta']) projects.push((await api.post('/v1/projects', { name })).body.id);
    const tasks = await Promise.all(
      ['Thread', 'b', 'C'].map(async (title) => (await api.post('/v1/tasks', { title, projectId: projects[0] })).body.id as string),
    );
    params.taskId = tasks[0]!;
    await Promise.all([0, 1, 2, 3, 4].map((i) => api.post(`/v1/tasks/${params.taskId}/comments`, { content: `comment ${i}` })));
    await Promise.all(['bug', 'design', 'ops', 'docs'].map((name) => api.post('/v1/labels', { name })));
    // The thread's relations, both ways round.
    await Promise.all([
      api.post(`/v1/tasks/${params.taskId}/relations`, { type: 'blocks', taskId: tasks[1] }),
      api.post(`/v1/tasks/${params.taskId}/relations`, { type: 'relates_to', taskId: tasks[2] }),
      api.post(`/v1/tasks/${tasks[1]}/relations`, { type: 'duplicates', taskId: params.taskId }),
    ]);
    const webhooks = await Promise.all(
      [0, 1, 2, 3].map(async () => (await api.post('/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['*'] })).body.id as string),
    );
    params.webhookId = webhooks[0]!;
    await Promise.all([0, 1, 2, 3].map(() => api.post(`/v1/webhooks/${params.webhookId}/test`, {})));
    for (let i = 0; i < 4; i++) {
      await addMember(h.db, owner);
      await api.post('/v1/members/invite', { email: `invited-${i}-${owner.organization.id.toLowerCase()}@example.com`, role: 'guest' });
      await api.post('/v1/api-keys', { name: `key ${i}` });
      await h.db.file.create({
        data: {
          id: newId('file'),
          organizationId: owner.organization.id,
          mode: 'live',
          projectId: projects[1]!,
          name: `f${i}`,
          size: 1,
          contentType: 'text/plain',
          storageKey: `k${i}`,
          uploaderId: owner.user.id,
        },
      });
    }
  });

  const lists = apiRoutes.filter((route) => route.method === 'get' && route.query?.describe().keys?.cursor);

  it('are all of the lists', () => {
    expect(lists.map((route) => route.path).sort()).toEqual(
      [
        '/api-keys',
        '/events',
        '/files',
        '/labels',
        '/members',
        '/members/invitations',
        '/projects',
        '/tasks',
        '/tasks/:taskId/activity',
        '/tasks/:taskId/comments',
        '/tasks/:taskId/relations',
        '/webhooks',
        '/webhooks/:webhookId/deliveries',
      ].sort(),
    );
  });

  it.each(lists.map((route) => [route.path, route] as const))(
    '%s pages by cursor through the same records as one page, in every order it offers',
    async (path, route) => {
      const url = `/v1${path.replace(/:(\w+)/g, (_, name: string) => params[name]!)}`;
      const sorts = route.query!.describe().keys.sort.allow as string[];
      expect(sorts.length).toBeGreaterThanOrEqual(2);
      for (const sort of sorts) {
        const whole = (await as(h.app, owner.liveKey).get(`${url}?sort=${sort}&limit=100`)).body.data as { id: string }[];
        expect(whole.length).toBeGreaterThan(2);
        const compare = inOrder(sort.replace(/^-/, ''), sort.startsWith('-'));
        for (let i = 1; i < whole.length; i++) expect({ sort, at: i, inOrder: compare(whole[i - 1]!, whole[i]!) < 0 }).toEqual({ sort, at: i, inOrder: true });
        const walked = await walk<{ id: string }>(h.app, owner.liveKey, url, `sort=${sort}`, 2);
        expect({ sort, ids: walked.map((r) => r.id) }).toEqual({ sort, ids: whole.map((r) => r.id) });
      }
    },
  );
});

describe('CURSOR_SECRET', () => {
  it('is required in production, 32 characters at least; elsewhere a secret is made at boot', () => {
    expect(() => loadApiConfig({ NODE_ENV: 'production' })).toThrow(/CURSOR_SECRET is required in production/);
    expect(() => loadApiConfig({ NODE_ENV: 'production', CURSOR_SECRET: '' })).toThrow(/CURSOR_SECRET is required in production/);
    expect(() => loadApiConfig({ NODE_ENV: 'production', CURSOR_SECRET: 'x'.repeat(31) })).toThrow(/CURSOR_SECRET/);
    // SECRETS_KEY is required in production too (docs/decisions.md#http-behaviour-and-secrets-at-rest).
    expect(loadApiConfig({ NODE_ENV: 'production', CURSOR_SECRET: 'x'.repeat(32), SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') })).toMatchObject({
      cursorSecret: 'x'.repeat(32),
      cursorSecretEphemeral: false,
    });
    const development = loadApiConfig({});
    expect(development.cursorSecretEphemeral).toBe(true);
    expect(development.cursorSecret).not.toBe(loadApiConfig({}).cursorSecret);
  });
});

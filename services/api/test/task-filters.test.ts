import fc from 'fast-check';
import type { TaskRecord } from '@worktrack/events';
import { toTaskRecord } from '../src/modules/tasks/task-record';
import { addMember, as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';
import { seedTasks } from '@test-support/seed-tasks';
import { filterQuery, inOrder, matchesFilters, SORT_FIELDS, type TaskFilters } from '@test-support/list-reference';
import { walk } from '@test-support/list-walk';

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let projects: string[];
let members: string[];
/** Every live task of the organization, as the API shows it: the reference the filters are checked against. */
let tasks: TaskRecord[];

beforeAll(async () => {
  h = createHarness();
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  const api = as(h.app, org.liveKey);
  projects = [(await api.post('/v1/projects', { name: 'One' })).body.id, (await api.post('/v1/projects', { name: 'Two' })).body.id];
  members = (await Promise.all([addMember(h.db, org), addMember(h.db, org), addMember(h.db, org)])).map((m) => m.userId);
  const seed = { organizationId: org.organization.id, creatorId: org.user.id, assignees: members };
  await seedTasks(h.db, { ...seed, projectId: projects[0]!, count: 1_200 });
  await seedTasks(h.db, { ...seed, projectId: projects[1]!, count: 300 });
  // The same words elsewhere: another organization's tasks and the test data are never found.
  const foreign = (await as(h.app, otherOrg.liveKey).post('/v1/projects', { name: 'Foreign' })).body.id;
  await seedTasks(h.db, {
    organizationId: otherOrg.organization.id,
    projectId: foreign,
    creatorId: otherOrg.user.id,
    assignees: [otherOrg.user.id],
    count: 200,
  });
  const testProject = (await as(h.app, org.testKey).post('/v1/projects', { name: 'Sandbox' })).body.id;
  await seedTasks(h.db, { ...seed, projectId: testProject, count: 100, mode: 'test' });
  tasks = (await h.db.task.findMany({ where: { organizationId: org.organization.id, mode: 'live' } })).map((task) =>
    toTaskRecord({ ...task, subtasks: { total: 0, done: 0 } }),
  );
}, 60_000);
afterAll(() => h.close());

/** The filtered list, walked to its end, against the reference: the same tasks in the same order. */
async function expectFiltered(filters: TaskFilters, sort = '-createdAt'): Promise<void> {
  const field = sort.replace(/^-/, '') as (typeof SORT_FIELDS)[number];
  const expected = tasks.filter((task) => matchesFilters(task, filters)).sort(inOrder(field, sort.startsWith('-')));
  const listed = await walk<TaskRecord>(h.app, org.liveKey, '/v1/tasks', `${filterQuery(filters)}&sort=${sort}`);
  expect({ filters, sort, ids: listed.map((t) => t.id) }).toEqual({ filters, sort, ids: expected.map((t) => t.id) });
  const first = await as(h.app, org.liveKey).get(`/v1/tasks?${filterQuery(filters)}&limit=1`);
  expect(first.body.pagination.total).toBe(expected.length);
}

const instant = (base: string, hours: number, zone = 'Z') => {
  const date = new Date(new Date(base).getTime() + hours * 3600_000);
  if (zone === 'Z') return date.toISOString();
  const shifted = new Date(date.getTime() + 2 * 3600_000).toISOString().slice(0, 19);
  return `${shifted}+02:00`;
};

describe('GET /v1/tasks filters, each against a reference computed here', () => {
  it.each<[string, () => TaskFilters]>([
    ['projectId', () => ({ projectId: projects[1]! })],
    ['one status', () => ({ status: ['done'] })],
    ['two statuses', () => ({ status: ['todo', 'in_progress'] })],
    ['priorities', () => ({ priority: ['high', 'low'] })],
    ['one assignee', () => ({ assigneeId: [members[0]!] })],
    ['two assignees', () => ({ assigneeId: [members[0]!, members[2]!] })],
    ['unassigned', () => ({ assigneeId: ['none'] })],
    ['an assignee or nobody', () => ({ assigneeId: [members[1]!, 'none'] })],
    ['an id of no member', () => ({ assigneeId: ['usr_nobody'] })],
    ['dueBefore', () => ({ dueBefore: instant('2027-01-01', 50) })],
    ['dueAfter, with an offset', () => ({ dueAfter: instant('2027-01-01', 120, '+02:00') })],
    ['a due window', () => ({ dueAfter: instant('2027-01-01', 20), dueBefore: instant('2027-01-01', 90) })],
    ['updatedSince', () => ({ updatedSince: instant('2026-06-01', 0.2) })],
    ['createdSince', () => ({ createdSince: instant('2026-01-01', 12.5) })],
    ['q', () => ({ q: 'reunion' })],
  ])('%s', async (_, filters) => {
    await expectFiltered(filters());
  });

  it('combine: every filter with every other, under every order (property-based, seeded)', async () => {
    const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 2 });
    const filters = fc.record(
      {
        projectId: maybe(fc.constantFrom(...projects)),
        status: maybe(fc.subarray(['todo', 'in_progress', 'done'], { minLength: 1 })),
        priority: maybe(fc.subarray(['low', 'medium', 'high'], { minLength: 1 })),
        assigneeId: maybe(fc.subarray([...members, 'none'], { minLength: 1 })),
        dueBefore: maybe(fc.integer({ min: 0, max: 200 }).map((hours) => instant('2027-01-01', hours))),
        dueAfter: maybe(fc.integer({ min: 0, max: 200 }).map((hours) => instant('2027-01-01', hours, '+02:00'))),
        updatedSince: maybe(fc.integer({ min: 0, max: 1_200 }).map((seconds) => instant('2026-06-01', seconds / 3600))),
        createdSince: maybe(fc.integer({ min: 0, max: 1_000 }).map((minutes) => instant('2026-01-01', minutes / 60))),
        q: maybe(fc.constantFrom('reunion', 'ÉQUIPE', 'cafe', 'naive appro', 'LAU', 'zeb 17', 'ñandu', 'alpha écrire', 'quick', 'nomatch')),
      },
      { requiredKeys: [] },
    );
    const sorts = SORT_FIELDS.flatMap((field) => [field, `-${field}`]);
    await fc.assert(
      fc.asyncProperty(filters, fc.constantFrom(...sorts), async (given, sort) => {
        const defined = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as TaskFilters;
        await expectFiltered(defined, sort);
      }),
      { numRuns: 60, seed: 20_261_123 },
    );
  }, 120_000);
});

describe('q', () => {
  let found: (q: string) => Promise<string[]>;
  let meeting: string;
  let plan: string;

  beforeAll(async () => {
    const api = as(h.app, org.liveKey);
    const projectId = (await api.post('/v1/projects', { name: 'Words' })).body.id;
    meeting = (await api.post('/v1/tasks', { projectId, title: "Réunion de l'ÉQUIPE Façade" })).body.id;
    plan = (await api.post('/v1/tasks', { projectId, title: 'Plan', description: 'Déploiement du SERVICE naïf, étape 2' })).body.id;
    await api.post('/v1/tasks', { projectId, title: 'Unrelated', description: 'nothing here' });
    found = async (q) => (await walk<TaskRecord>(h.app, org.liveKey, '/v1/tasks', `projectId=${projectId}&q=${encodeURIComponent(q)}`)).map((t) => t.id);
  });

  it('ignores case and accents, in the query and in the text', async () => {
    expect(await found('reunion equipe')).toEqual([meeting]);
    expect(await found('RÉUNION Équipe FACADE')).toEqual([meeting]);
    expect(await found('façade')).toEqual([meeting]);
    expect(await found('deploiement naif')).toEqual([plan]);
    expect(await found('DÉPLOIEMENT Service')).toEqual([plan]);
  });

  it('matches the start of words, in the title or the description; every word must match', async () => {
    expect(await found('réu')).toEqual([meeting]);
    expect(await found('plan deploi')).toEqual([plan]);
    expect(await found('etape 2')).toEqual([plan]);
    expect(await found('union')).toEqual([]);
    expect(await found('reunion plan')).toEqual([]);
    expect(await found('equipe nothing')).toEqual([]);
  });

  it('reads operators and quotes as text: no negation, no OR', async () => {
    expect(await found("l'équipe")).toEqual([meeting]);
    expect(await found('!reunion')).toEqual([meeting]);
    expect(await found('reunion & !plan')).toEqual([]);
    expect(await found('reunion | plan')).toEqual([]);
    expect(await found("'\\ :* |")).toEqual([]);
  });
});

describe('GET /v1/tasks filter values', () => {
  it.each([
    ['status=todo,finished', 'status'],
    ['status=todo,', 'status'],
    ['priority=urgent', 'priority'],
    ['assigneeId=usr_1,,usr_2', 'assigneeId'],
    ['dueBefore=2027-01-01', 'dueBefore'],
    ['dueAfter=tomorrow', 'dueAfter'],
    ['updatedSince=2027-02-30T00:00:00Z', 'updatedSince'],
    ['createdSince=2027-01-01T00:00:00', 'createdSince'],
    ['q=', 'q'],
    [`q=${'x'.repeat(201)}`, 'q'],
    ['limit=101', 'limit'],
  ])('refuses %s naming %s', async (query, param) => {
    expectError(await as(h.app, org.liveKey).get(`/v1/tasks?${query}`), 400, 'invalid_request', param);
  });
});

import { pageSql, Prisma, TASK_SORT_KEYS, taskConditions, type Scope } from '@worktrack/db';
import type { Window } from '../src/http/pagination';
import type { TaskSortField } from '../src/modules/tasks/task-order';
import type { TaskFilters } from '../src/modules/tasks/task-schemas';
import { addMember, as, createHarness, createOrg, type Harness } from '@test-support/api-harness';
import { seedTasks } from '@test-support/seed-tasks';
import { SORT_FIELDS } from '@test-support/list-reference';

/**
 * The plans Postgres makes for GET /tasks: for every order and the documented filters, within a
 * project and across the tenant, on the first page and deep in a cursor walk, the rows come from
 * an index (no sequential scan), and no Sort node orders the project or the tenant. A Sort may only
 * order what an index found for a narrowing filter (the search index for `q`, a date range, an
 * assignee), which is the cheaper plan when that filter is selective.
 */

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** What a Sort may order: rows an index condition narrowed by a filter, not by the tenant or project alone. */
const NARROWING = /to_tsvector|"assigneeId"|"labelIds"|"parentId" =|\("dueDate" [<>]|\("updatedAt" >=|\("createdAt" >=/;

let h: Harness;
let scope: Scope;
let projectId: string;
let members: string[];
/** Two labels, each on a twentieth of the big project's tasks, and a parent of 300 of them. */
let labels: string[];
let parentId: string;

beforeAll(async () => {
  h = createHarness();
  const [org, other] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  scope = { organizationId: org.organization.id, mode: 'live' };
  const api = as(h.app, org.liveKey);
  [projectId] = [(await api.post('/v1/projects', { name: 'Big' })).body.id];
  const small = (await api.post('/v1/projects', { name: 'Small' })).body.id;
  members = (await Promise.all([addMember(h.db, org), addMember(h.db, org), addMember(h.db, org), addMember(h.db, org)])).map((m) => m.userId);
  const seed = { organizationId: org.organization.id, creatorId: org.user.id, assignees: members };
  await seedTasks(h.db, { ...seed, projectId: projectId!, count: 6_000 });
  await seedTasks(h.db, { ...seed, projectId: small, count: 1_500 });
  const foreign = (await as(h.app, other.liveKey).post('/v1/projects', { name: 'Foreign' })).body.id;
  await seedTasks(h.db, { organizationId: other.organization.id, projectId: foreign, creatorId: other.user.id, assignees: [other.user.id], count: 2_000 });
  labels = await Promise.all(['bug', 'feature'].map(async (name) => (await api.post('/v1/labels', { name })).body.id as string));
  parentId = (await api.post('/v1/tasks', { projectId, title: 'Epic' })).body.id;
  await h.db.$executeRaw`UPDATE "Task" SET "labelIds" = ARRAY[${labels[0]}] WHERE "projectId" = ${projectId} AND right(id, 2) < '2'`;
  await h.db.$executeRaw`UPDATE "Task" SET "labelIds" = ARRAY[${labels[1]}] WHERE "projectId" = ${projectId} AND right(id, 2) >= 'Y'`;
  await h.db
    .$executeRaw`UPDATE "Task" SET "parentId" = ${parentId} WHERE id IN (SELECT id FROM "Task" WHERE "projectId" = ${projectId} AND id <> ${parentId} LIMIT 300)`;
  await h.db.$executeRaw`ANALYZE "Task"`;
}, 120_000);
afterAll(() => h.close());

type Filters = Omit<TaskFilters, 'limit' | 'offset' | 'cursor' | 'sort'>;

const FILTERS: [string, () => Filters][] = [
  ['no filter', () => ({})],
  ['two statuses', () => ({ status: ['todo', 'in_progress'] })],
  ['a priority', () => ({ priority: ['high'] })],
  ['an assignee', () => ({ assigneeId: [members[0]!] })],
  ['unassigned', () => ({ assigneeId: ['none'] })],
  ['an assignee or nobody', () => ({ assigneeId: [members[1]!, 'none'] })],
  ['a due window', () => ({ dueAfter: '2027-01-02T00:00:00.000Z', dueBefore: '2027-01-06T00:00:00.000Z' })],
  ['updatedSince', () => ({ updatedSince: '2026-06-01T01:00:00.000Z' })],
  ['createdSince', () => ({ createdSince: '2026-01-01T08:00:00.000Z' })],
  ['q, a common word', () => ({ q: 'launch' })],
  ['q, rare words', () => ({ q: 'nandu zebre 17' })],
  ['a label', () => ({ labelId: [labels[0]!] })],
  ['either of two labels', () => ({ labelId: labels })],
  ['a parent', () => ({ parentId })],
  ['top level', () => ({ topLevel: true })],
  [
    'every filter',
    () => ({
      status: ['todo', 'done'],
      priority: ['low', 'high'],
      assigneeId: [members[2]!, 'none'],
      dueAfter: '2027-01-01T00:00:00.000Z',
      updatedSince: '2026-06-01T00:10:00.000Z',
      q: 'reunion',
    }),
  ],
];

/** A position deep in the walk: the task at the middle of the project in that order. */
async function middleOf(field: TaskSortField, descending: boolean): Promise<Window<TaskSortField>['after']> {
  const window: Window<TaskSortField> = { take: 1, skip: 3_000, after: null, sort: { field, descending } };
  const [task] = await h.db.$queryRaw<Record<string, unknown>[]>(pageSql('Task', taskConditions(scope, { projectId }), TASK_SORT_KEYS[field], window));
  const value = task![field];
  return { value: value instanceof Date ? value.toISOString() : (value as string | null), id: task!.id as string, offset: 3_000 };
}

async function planOf(filters: Filters, window: Window<TaskSortField>): Promise<PlanNode> {
  const sql = pageSql('Task', taskConditions(scope, filters), TASK_SORT_KEYS[window.sort.field], window);
  const [row] = await h.db.$queryRaw<{ 'QUERY PLAN': { Plan: PlanNode }[] }[]>(Prisma.sql`EXPLAIN (FORMAT JSON) ${sql}`);
  return row!['QUERY PLAN'][0]!.Plan;
}

describe('the plans of GET /v1/tasks', () => {
  const orders = SORT_FIELDS.flatMap((field) => [false, true].map((descending) => ({ field, descending })));

  it.each(orders)(
    'by $field (descending: $descending) read an index and sort neither the project nor the tenant',
    async ({ field, descending }) => {
      const deep = await middleOf(field, descending);
      for (const [name, filtersOf] of FILTERS) {
        for (const within of ['project', 'tenant'] as const) {
          for (const after of [null, deep]) {
            const filters = { ...filtersOf(), ...(within === 'project' && { projectId }) };
            const plan = await planOf(filters, { take: 51, skip: 0, after, sort: { field, descending } });
            const nodes = nodesOf(plan);
            const label = `${name}, ${within}${after ? ', deep' : ''}`;
            const sequential = nodes.filter((node) => node['Node Type'] === 'Seq Scan').map((node) => node['Relation Name']);
            const indexes = nodes.map((node) => node['Index Name']).filter(Boolean);
            const unnarrowedSorts = nodes
              .filter((node) => node['Node Type'] === 'Sort')
              .filter((sort) => !nodesOf(sort).some((node) => NARROWING.test(`${node['Index Cond'] ?? ''} ${node['Recheck Cond'] ?? ''}`)));
            expect({ label, sequential, usesAnIndex: indexes.length > 0, unnarrowedSorts: unnarrowedSorts.length }).toEqual({
              label,
              sequential: [],
              usesAnIndex: true,
              unnarrowedSorts: 0,
            });
          }
        }
      }
    },
    60_000,
  );

  it('walk an index in the order asked for when no filter narrows the rows', async () => {
    for (const { field, descending } of orders) {
      for (const within of [{ projectId }, {}]) {
        const plan = await planOf(within, { take: 51, skip: 0, after: null, sort: { field, descending } });
        const nodes = nodesOf(plan);
        expect({
          field,
          descending,
          within,
          sorts: nodes.filter((n) => n['Node Type'] === 'Sort').length,
          scan: `${nodes[1]?.['Node Type']} ${nodes[1]?.['Scan Direction']}`,
        }).toEqual({
          field,
          descending,
          within,
          sorts: 0,
          scan: `Index Scan ${descending ? 'Backward' : 'Forward'}`,
        });
      }
    }
  });
});

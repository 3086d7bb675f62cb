// `pnpm bench:growth` (issue 8): how the task list holds up as one project grows, against a running
// `pnpm start`. Creates its own organization, four members and a project, then grows the project in
// steps (10,000, 100,000 and 1,000,000 tasks), seeding the tasks straight in SQL (INSERT ... SELECT
// FROM generate_series, GROWTH_BATCH rows a statement, into "Task" only: the triggers keep the
// counts) with varied status, priority and assignee (none for 30%), created in order over two years,
// then VACUUM ANALYZE (autovacuum is off on the development machines). Labels (issue 39): three
// of the organization's, on 30%, 10% and 1% of the tasks independently; sub-tasks: the first task of
// each thousand is the parent of 49 of them, and task 2 of one in each thousand (1,000 at a
// million), 5% of the tasks in all; the SubtaskCount triggers keep the parents' counts, checked
// against the children in SQL after each step. At each size, one table of
// GET /v1/tasks?projectId=&limit=50:
//   1. the first page, in the default order (newest first), with its exact pagination.total;
//   2. filtered first pages, one row per filter: status, priority, a member's tasks, unassigned
//      tasks, a member assigned 1% of them, each label (labelId=), the two kinds of parent
//      (parentId=) and the tasks without one (topLevel=true);
//   3. the page after a position 90% deep, by cursor: a cursor minted with the API's own sealing
//      (CursorCodec) at the task SQL finds there, checked against the cursor the API gives for the
//      same position; if this process has not the service's CURSOR_SECRET, the API's cursor;
//   4. for reference, the same page by offset= (the non-cursor way, which reads every skipped task).
// Each is measured one request at a time (p50/p99 latency; the goal is p99 < 50 ms), then with
// GROWTH_CONNECTIONS concurrent connections (autocannon). Before measuring, each answer is checked:
// pagination.total must equal the count in SQL (the seeded size, or the filter's count), and a deep
// page must start at the task SQL finds at that position; anything else fails the run.
// Settings: BENCH_URL (http://127.0.0.1:3000), BENCH_SECONDS (5 per measurement; one at a time, at
// least 100 requests, for at most 4x as long), GROWTH_SIZES (10000,100000,1000000), GROWTH_BATCH
// (10000), GROWTH_CONNECTIONS (10; 0 skips that measurement), GROWTH_KEEP (1 keeps the
// organization and its tasks, by default deleted at the end), CURSOR_SECRET (set the same for
// `pnpm start` to mint the cursor).
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { request } from 'undici';
import { loadApiConfig, loadDotEnv } from '@worktrack/config';
import { createDb, newId, unscopedData } from '@worktrack/db';
import { cursorCodec, type Position } from '../services/api/src/http/cursor';
import { cursorContext } from '../services/api/src/http/pagination';
import { bootstrapOrganization } from '../services/api/src/modules/organizations/bootstrap-organization';
import { taskOrder } from '../services/api/src/modules/tasks/task-order';
import { percentile } from './receiver';
import { runToExit } from './run-to-exit';

const base = process.env.BENCH_URL ?? 'http://127.0.0.1:3000';
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const sizes = (process.env.GROWTH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
// Rows per INSERT: a bounded transaction, so that seeding shows progress and holds no lock for long.
const batch = Number(process.env.GROWTH_BATCH ?? 10_000);
const connections = Number(process.env.GROWTH_CONNECTIONS ?? 10);
const keep = process.env.GROWTH_KEEP === '1';
const PAGE = 50;
const DEPTH = 0.9;
const MIN_SAMPLES = 100;
const GOAL_P99_MS = 50;
/** The tasks are created over the two years to the start of the run. */
const SPAN_SECONDS = 730 * 24 * 3600;

interface Setup {
  organizationId: string;
  projectId: string;
  headers: Record<string, string>;
  /** The bootstrap admin: creator of every task, assignee of 1%. */
  userId: string;
  /** Four more members, assigned 69% of the tasks between them. */
  members: string[];
  /** When the first task was created. */
  since: Date;
  /** Labels on 30%, 10% and 1% of the tasks. */
  labels: [string, string, string];
}

/** The labels, with the share of tasks each is on. */
const LABEL_SHARES = [0.3, 0.1, 0.01] as const;

async function setUp(databaseUrl: string): Promise<Setup> {
  const db = createDb(databaseUrl, { poolSize: 2 });
  const stamp = Date.now();
  let org: Awaited<ReturnType<typeof bootstrapOrganization>>;
  const members: string[] = [];
  try {
    org = await bootstrapOrganization(unscopedData({ db }), {
      name: `Growth ${stamp}`,
      email: `growth-${stamp}@example.com`,
      plan: 'enterprise',
      dailyQuota: 100_000_000,
    });
    for (let i = 1; i <= 4; i++) {
      const user = await db.user.create({ data: { id: newId('user'), email: `growth-${stamp}-member${i}@example.com` } });
      await db.membership.create({ data: { organizationId: org.organization.id, userId: user.id, role: 'member' } });
      members.push(user.id);
    }
  } finally {
    await db.$disconnect();
  }
  const headers = { authorization: `Bearer ${org.liveKey}`, 'content-type': 'application/json' };
  const res = await request(`${base}/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'Growth' }) });
  if (res.statusCode !== 201) throw new Error(`POST /v1/projects: ${res.statusCode} ${await res.body.text()}`);
  const project = (await res.body.json()) as { id: string };
  const labels = [];
  for (const share of LABEL_SHARES) {
    const created = await request(`${base}/v1/labels`, { method: 'POST', headers, body: JSON.stringify({ name: `On ${share * 100}%` }) });
    if (created.statusCode !== 201) throw new Error(`POST /v1/labels: ${created.statusCode} ${await created.body.text()}`);
    labels.push(((await created.body.json()) as { id: string }).id);
  }
  const since = new Date(stamp - SPAN_SECONDS * 1000);
  return { organizationId: org.organization.id, projectId: project.id, headers, userId: org.user.id, members, since, labels: labels as Setup['labels'] };
}

/**
 * Tasks number `from`..`to` of the project, in one statement, in creation order as a project grows:
 * the two years before the run cut into as many slices as the largest size, task i created at a
 * random instant of slice i ($7 the start, $8 a slice in seconds). Ids sort in creation order too,
 * as ULIDs do: `tsk_`, i in 8 hex digits and 18 of the md5 of the project and i (26 characters;
 * unique, and accepted wherever the API shows a task id). Updated at a random time since; due
 * within 60 days of creation for 60%. Status: todo 25%, in_progress 15%, done 60%; priority: low
 * 20%, medium 65%, high 15%; assignee: none 30%, the admin 1%, the four members 17.25% each.
 * Labels ($9) and parents as the header says: task k*1000 + 20j (j = 1..49) is a sub-task of task
 * k*1000 + 1, and task k*1000 + 11 of task 2 (parents come first, so the foreign key holds).
 */
const SEED_SQL = `
INSERT INTO "Task" (id, "organizationId", mode, "projectId", title, description, status, priority, "assigneeId", "creatorId", "dueDate", "labelIds", "parentId", "createdAt", "updatedAt")
SELECT ${taskId('i')}, $1, 'live', $2, 'Growth task ' || i,
  CASE WHEN d < 0.5 THEN NULL ELSE 'Seeded by bench/growth.ts' END,
  (CASE WHEN s < 0.25 THEN 'todo' WHEN s < 0.4 THEN 'in_progress' ELSE 'done' END)::"TaskStatus",
  (CASE WHEN p < 0.2 THEN 'low' WHEN p < 0.85 THEN 'medium' ELSE 'high' END)::"Priority",
  CASE WHEN a < 0.3 THEN NULL WHEN a < 0.31 THEN $3 ELSE ($4::text[])[1 + floor((a - 0.31) / 0.69 * 4)::int] END,
  $3,
  CASE WHEN d < 0.4 THEN NULL ELSE created + d * interval '60 days' END,
  array_remove(ARRAY[${LABEL_SHARES.map((share, n) => `CASE WHEN l${n} < ${share} THEN ($9::text[])[${n + 1}] END`).join(', ')}], NULL),
  CASE WHEN i % 1000 = 11 THEN ${taskId('2')} WHEN i % 20 = 0 AND i % 1000 <> 0 THEN ${taskId('(i - i % 1000 + 1)')} END,
  created,
  created + u * (now() - created)
FROM (
  SELECT i, random() AS s, random() AS p, random() AS a, random() AS d, random() AS u, random() AS l0, random() AS l1, random() AS l2, $7::timestamptz + (i - 1 + random()) * $8::float8 * interval '1 second' AS created
  FROM generate_series($5::int, $6::int) AS i
) r`;

/** Task number `i` (an SQL expression)'s id. */
function taskId(i: string): string {
  return `'tsk_' || lpad(to_hex(${i}), 8, '0') || left(md5($2 || ':' || ${i}), 18)`;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

async function seed(pg: Client, setup: Setup, from: number, to: number): Promise<void> {
  const started = performance.now();
  for (let first = from; first <= to; first += batch) {
    const last = Math.min(to, first + batch - 1);
    await pg.query(SEED_SQL, [
      setup.organizationId,
      setup.projectId,
      setup.userId,
      setup.members,
      first,
      last,
      setup.since,
      SPAN_SECONDS / sizes.at(-1)!,
      setup.labels,
    ]);
  }
  const seeded = performance.now();
  // The maintained counts too: autovacuum would, in production.
  await pg.query('VACUUM ANALYZE "Task", "TaskCount", "SubtaskCount"');
  const done = performance.now();
  await checkSubtaskCounts(pg, setup);
  const n = to - from + 1;
  console.log(
    `\nSeeded ${int(n)} tasks (${int(from)}..${int(to)}) in ${((seeded - started) / 1000).toFixed(1)} s (${int(n / ((seeded - started) / 1000))}/s); ` +
      `VACUUM ANALYZE ${((done - seeded) / 1000).toFixed(1)} s.`,
  );
}

/** Fails the run unless every parent's SubtaskCount rows add up to its children in SQL. */
async function checkSubtaskCounts(pg: Client, setup: Setup): Promise<void> {
  const wrong = await pg.query<{ id: string; children: string; done: string; total: string | null; counted_done: string | null }>(
    `SELECT p.id, children.n AS children, children.done, counts.total, counts.done AS counted_done
     FROM "Task" p
     JOIN (SELECT "parentId", count(*) AS n, count(*) FILTER (WHERE status = 'done') AS done FROM "Task"
           WHERE "organizationId" = $1 AND "projectId" = $2 AND "parentId" IS NOT NULL GROUP BY "parentId") children ON children."parentId" = p.id
     LEFT JOIN (SELECT "parentId", sum(total) AS total, sum(done) AS done FROM "SubtaskCount" GROUP BY "parentId") counts ON counts."parentId" = p.id
     WHERE counts.total IS DISTINCT FROM children.n OR counts.done IS DISTINCT FROM children.done
     LIMIT 1`,
    [setup.organizationId, setup.projectId],
  );
  const [row] = wrong.rows;
  if (row) throw new Error(`SubtaskCount of ${row.id}: ${row.total}/${row.counted_done} done, but ${row.children}/${row.done} done children`);
}

interface Probe {
  label: string;
  query: string;
  /** What pagination.total must be. */
  total: number;
  /** The id the page must start with. */
  firstId: string | null;
  /** Where pagination.offset must be. */
  offset: number;
}

interface Page {
  data: { id: string }[];
  pagination: { total: number; offset: number; nextCursor: string | null };
}

async function get(setup: Setup, query: string): Promise<Page> {
  const res = await request(`${base}/v1/tasks?${query}`, { headers: setup.headers });
  if (res.statusCode !== 200) throw new Error(`GET /v1/tasks?${query}: ${res.statusCode} ${await res.body.text()}`);
  return (await res.body.json()) as Page;
}

/** Fails the run unless the answer is the one SQL says it must be. */
async function check(setup: Setup, probe: Probe): Promise<void> {
  const page = await get(setup, probe.query);
  const problems = [];
  if (page.pagination.total !== probe.total) problems.push(`pagination.total ${page.pagination.total}, expected ${probe.total}`);
  if (page.pagination.offset !== probe.offset) problems.push(`pagination.offset ${page.pagination.offset}, expected ${probe.offset}`);
  const expected = Math.min(PAGE, probe.total - probe.offset);
  if (page.data.length !== expected) problems.push(`${page.data.length} tasks, expected ${expected}`);
  if (probe.firstId && page.data[0]?.id !== probe.firstId) problems.push(`first task ${page.data[0]?.id}, expected ${probe.firstId}`);
  if (problems.length > 0) throw new Error(`GET /v1/tasks?${probe.query} (${probe.label}): ${problems.join('; ')}`);
}

/** One request at a time, after a second's warm-up: for BENCH_SECONDS and at least MIN_SAMPLES requests. */
async function sequential(url: string, headers: Record<string, string>) {
  const run = async (until: (elapsed: number, n: number) => boolean) => {
    const times: number[] = [];
    const start = performance.now();
    while (!until(performance.now() - start, times.length)) {
      const t0 = performance.now();
      const res = await request(url, { headers });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
      times.push(performance.now() - t0);
    }
    return { times, elapsed: performance.now() - start };
  };
  await run((elapsed, n) => elapsed >= Math.min(1000, seconds * 1000) && n >= 5);
  const { times, elapsed } = await run((t, n) => (t >= seconds * 1000 && n >= MIN_SAMPLES) || t >= 4 * seconds * 1000);
  return { n: times.length, p50: percentile(times, 50), p99: percentile(times, 99), perSecond: (times.length / elapsed) * 1000 };
}

async function concurrent(url: string, headers: Record<string, string>) {
  const result = await autocannon({ url, headers, connections, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { p50: result.latency.p50, p99: result.latency.p99, perSecond: result.requests.total / result.duration };
}

/** The position after the task `n` tasks deep (0-based `n - 1`) in the default order, and the next task's id, from SQL. */
async function positionAt(pg: Client, setup: Setup, n: number): Promise<{ position: Position; nextId: string }> {
  const rows = await pg.query<{ id: string; createdAt: Date }>(
    `SELECT id, "createdAt" FROM "Task" WHERE "organizationId" = $1 AND mode = 'live' AND "projectId" = $2
     ORDER BY "createdAt" DESC, id DESC OFFSET $3 LIMIT 2`,
    [setup.organizationId, setup.projectId, n - 1],
  );
  const [last, next] = rows.rows;
  if (!last || !next) throw new Error(`No task ${n} deep`);
  return { position: { value: last.createdAt.toISOString(), id: last.id, offset: n }, nextId: next.id };
}

/**
 * A cursor for the page after `n` tasks, and where it came from. Minted as paginate() seals one,
 * bound to the list (tenant, path parameters, filters, sort); the API's own, from the page that ends
 * there, must open to the same position, or the context or the secret is not the service's.
 */
async function deepCursor(pg: Client, setup: Setup, n: number, secret: string) {
  const { position, nextId } = await positionAt(pg, setup, n);
  const context = cursorContext(taskOrder.name, { organizationId: setup.organizationId, mode: 'live' }, {}, taskOrder.default, { projectId: setup.projectId });
  const codec = cursorCodec(secret);
  const apiCursor = (await get(setup, `projectId=${setup.projectId}&limit=${PAGE}&offset=${n - PAGE}`)).pagination.nextCursor;
  if (!apiCursor) throw new Error(`No nextCursor on the page ending ${n} deep`);
  let opened: Position;
  try {
    opened = codec.open(apiCursor, context);
  } catch {
    return { cursor: apiCursor, nextId, source: "the API's (this process's CURSOR_SECRET is not the service's)" };
  }
  if (JSON.stringify(opened) !== JSON.stringify(position)) {
    throw new Error(`The API's cursor ${n} deep is at ${JSON.stringify(opened)}; SQL says ${JSON.stringify(position)}`);
  }
  return { cursor: codec.seal(position, context), nextId, source: 'minted with CURSOR_SECRET (the API seals the same position)' };
}

/** Counts in SQL of the tasks a filter matches. */
async function countWhere(pg: Client, setup: Setup, condition: string, values: unknown[] = []): Promise<number> {
  const rows = await pg.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "Task" WHERE "organizationId" = $1 AND mode = 'live' AND "projectId" = $2 AND ${condition}`,
    [setup.organizationId, setup.projectId, ...values],
  );
  return rows.rows[0]!.n;
}

async function probes(pg: Client, setup: Setup, size: number, secret: string): Promise<{ probes: Probe[]; cursorSource: string }> {
  const list = `projectId=${setup.projectId}&limit=${PAGE}`;
  const [member] = setup.members;
  const [broad, common, rare] = setup.labels;
  // Task 2 has a child in each thousand; task 1 (as each thousand's first) 49.
  const parents = await pg.query<{ id: string }>(
    `SELECT id FROM "Task" WHERE "organizationId" = $1 AND mode = 'live' AND "projectId" = $2 ORDER BY "createdAt", id LIMIT 2`,
    [setup.organizationId, setup.projectId],
  );
  const [few, many] = parents.rows.map((row) => row.id);
  const deep = Math.floor(size * DEPTH);
  const { cursor, nextId, source } = await deepCursor(pg, setup, deep, secret);
  const filtered = async (label: string, param: string, condition: string, values: unknown[]): Promise<Probe> => ({
    label,
    query: `${list}&${param}`,
    total: await countWhere(pg, setup, condition, values),
    firstId: null,
    offset: 0,
  });
  return {
    cursorSource: source,
    probes: [
      { label: 'first page', query: list, total: await countWhere(pg, setup, 'TRUE'), firstId: (await positionAt(pg, setup, 1)).position.id, offset: 0 },
      await filtered('status=todo', 'status=todo', `status = 'todo'`, []),
      await filtered('priority=high', 'priority=high', `priority = 'high'`, []),
      await filtered('assigneeId=member (17%)', `assigneeId=${member}`, `"assigneeId" = $3`, [member]),
      await filtered('assigneeId=none (30%)', 'assigneeId=none', `"assigneeId" IS NULL`, []),
      await filtered('assigneeId=admin (1%)', `assigneeId=${setup.userId}`, `"assigneeId" = $3`, [setup.userId]),
      await filtered('labelId= (30%)', `labelId=${broad}`, `"labelIds" @> ARRAY[$3::text]`, [broad]),
      await filtered('labelId= (10%)', `labelId=${common}`, `"labelIds" @> ARRAY[$3::text]`, [common]),
      await filtered('labelId= (1%)', `labelId=${rare}`, `"labelIds" @> ARRAY[$3::text]`, [rare]),
      await filtered('parentId= (a child in each 1,000)', `parentId=${many}`, `"parentId" = $3`, [many]),
      await filtered('parentId= (49 children)', `parentId=${few}`, `"parentId" = $3`, [few]),
      await filtered('topLevel=true', 'topLevel=true', `"parentId" IS NULL`, []),
      { label: `cursor page ${int(deep)} deep`, query: `${list}&cursor=${cursor}`, total: size, firstId: nextId, offset: deep },
      { label: `offset=${int(deep)} (no cursor)`, query: `${list}&offset=${deep}`, total: size, firstId: nextId, offset: deep },
    ],
  };
}

function printTable(size: number, rows: { probe: Probe; one: Awaited<ReturnType<typeof sequential>>; many?: Awaited<ReturnType<typeof concurrent>> }[]) {
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const many = connections > 0;
  console.log(`\n### ${int(size)} tasks in the project: GET /v1/tasks?projectId=&limit=${PAGE}\n`);
  console.log(
    row(['request', 'total', 'p50 ms', 'p99 ms', 'req/s', `p99 < ${GOAL_P99_MS} ms`, ...(many ? [`${connections} conns: p50 ms`, 'p99 ms', 'req/s'] : [])]),
  );
  console.log(row(['---', '---:', '---:', '---:', '---:', ':---:', ...(many ? ['---:', '---:', '---:'] : [])]));
  for (const { probe, one, many: m } of rows) {
    console.log(
      row([
        probe.label,
        int(probe.total),
        ms(one.p50),
        ms(one.p99),
        int(one.perSecond),
        one.p99 < GOAL_P99_MS ? 'yes' : 'NO',
        // autocannon's latencies are whole milliseconds.
        ...(m ? [int(m.p50), int(m.p99), int(m.perSecond)] : []),
      ]),
    );
  }
}

async function main() {
  loadDotEnv();
  const api = loadApiConfig();
  if (sizes.some((size, i) => !Number.isSafeInteger(size) || size < 2 * PAGE || size <= (sizes[i - 1] ?? 0))) {
    throw new Error(`GROWTH_SIZES must be increasing whole numbers of at least ${2 * PAGE}: ${sizes.join(',')}`);
  }
  const pg = new Client({ connectionString: api.databaseUrl });
  await pg.connect();
  const setup = await setUp(api.databaseUrl);
  console.log(
    `# pnpm bench:growth against ${base}: organization ${setup.organizationId}, project ${setup.projectId}; ` +
      `${seconds} s per measurement, one request at a time (at least ${MIN_SAMPLES}), then ${connections} connections. Goal: p99 < ${GOAL_P99_MS} ms.`,
  );
  try {
    let seeded = 0;
    for (const size of sizes) {
      await seed(pg, setup, seeded + 1, size);
      seeded = size;
      const { probes: list, cursorSource } = await probes(pg, setup, size, api.cursorSecret);
      for (const probe of list) await check(setup, probe);
      console.log(`Every total and deep page checked against SQL. Deep cursor: ${cursorSource}.`);
      const rows = [];
      for (const probe of list) {
        const url = `${base}/v1/tasks?${probe.query}`;
        const one = await sequential(url, setup.headers);
        rows.push({ probe, one, ...(connections > 0 ? { many: await concurrent(url, setup.headers) } : {}) });
      }
      printTable(size, rows);
    }
  } finally {
    if (keep) console.log(`\nKept organization ${setup.organizationId} (GROWTH_KEEP=1).`);
    else {
      const started = performance.now();
      await pg.query('DELETE FROM "Organization" WHERE id = $1', [setup.organizationId]);
      await pg.query('VACUUM ANALYZE "Task", "TaskCount"');
      console.log(`\nDeleted the organization and its tasks in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
    }
    await pg.end();
  }
}

runToExit(main);

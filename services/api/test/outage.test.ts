import { Client } from 'pg';
import request from 'supertest';
import { toApiError } from '../src/http/errors';
import { as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';

let h: Harness;
let org: TestOrg;
let projectId: string;
let taskId: string;
/** Terminates the API's connections, as a Postgres restart does; on this file's own database only. */
let killer: Client;

beforeAll(async () => {
  h = createHarness();
  org = await createOrg(h.db);
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Outage' })).body.id;
  taskId = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Survives', projectId })).body.id;
  killer = new Client({ connectionString: process.env.DATABASE_URL });
  await killer.connect();
});
afterAll(async () => {
  await killer.end();
  await h.close();
});

const terminateBackends = () =>
  killer.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');

/** Reads and writes of every kind: the authentication query, model queries, raw inserts, interactive transactions. */
const requests = [
  () => as(h.app, org.liveKey).get('/v1/tasks'),
  () => as(h.app, org.liveKey).get(`/v1/tasks/${taskId}`),
  () => as(h.app, org.liveKey).post('/v1/tasks', { title: 'During', projectId }),
  () => as(h.app, org.liveKey).patch(`/v1/tasks/${taskId}`, { priority: 'high' }),
  () => as(h.app, org.liveKey).post('/v1/projects', { name: 'During' }),
  () => as(h.app, org.liveKey).get('/v1/members'),
  () => request(h.app).get('/readyz'),
];

describe('a Postgres restart', () => {
  it('answers 503 unavailable, never 500, while the connections are terminated', async () => {
    const answers: { status: number; body: { error?: { code?: string } } }[] = [];
    // At least 40 rounds, and on until one request was cut mid-query (a starved machine may start a
    // batch's queries only after the terminations, on fresh connections); bounded.
    const deadline = Date.now() + 20_000;
    const cutOnce = () => answers.some(({ status }) => status === 503);
    for (let round = 0; round < 40 || (!cutOnce() && Date.now() < deadline); round++) {
      const batch = Array.from({ length: 3 }, () => requests.map((send) => send())).flat();
      // Terminates while the batch is in flight: some queries die mid-way, some connections idle in the pool.
      await Promise.all([terminateBackends(), ...batch.map(async (req) => answers.push(await req))]);
    }
    const wrong = answers.filter(({ status, body }) => !(status < 300 || (status === 503 && body.error?.code === 'unavailable')));
    expect(wrong).toEqual([]);
    expect(cutOnce()).toBe(true);
    expect((await as(h.app, org.liveKey).get('/v1/tasks')).status).toBe(200);
  }, 45_000);
});

describe('the outage classifier', () => {
  /** A real Prisma error carrying a Postgres SQLSTATE, as a raw query and inside a transaction. */
  async function errorsWith(sqlstate: string): Promise<unknown[]> {
    const raise = `DO $$ BEGIN RAISE EXCEPTION 'simulated' USING ERRCODE = '${sqlstate}'; END $$`;
    return Promise.all([
      h.db.$executeRawUnsafe(raise).catch((err: unknown) => err),
      h.db.$transaction((tx) => tx.$executeRawUnsafe(raise)).catch((err: unknown) => err),
    ]);
  }

  it.each([
    ['57P01', 'admin shutdown'],
    ['57P02', 'crash shutdown'],
    ['57P03', 'cannot connect now: starting up'],
    ['08006', 'connection failure'],
    ['53300', 'too many connections'],
  ])('counts %s (%s) as an outage: 503', async (sqlstate) => {
    for (const err of await errorsWith(sqlstate)) expect(toApiError(err)).toMatchObject({ status: 503, code: 'unavailable' });
  });

  it.each([['P0001'], ['22023'], ['40001']])('does not count %s as an outage', async (sqlstate) => {
    for (const err of await errorsWith(sqlstate)) expect(toApiError(err)).toBeNull();
  });
});

import { as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';

/** docs/decisions.md#ids-and-timestamps: RFC 3339, a 4-digit year 0001-9999 (in UTC too), a real calendar date, a time zone. */
const REFUSED = [
  '+010000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:30:00-01:00',
  '2026-02-30T00:00:00Z',
  '2025-02-29T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T00:00:60Z',
  '2026-01-01T00:00:00+24:00',
  '2026-01-01T00:00:00',
  '2026-01-01',
  '2026-01-01T00:00Z',
  ' 2026-01-01T00:00:00Z',
  '1767225600000',
];

/** Accepted input and the UTC form, with milliseconds, in which it is stored and returned. */
const ACCEPTED: [string, string][] = [
  ['2026-11-21T10:00:00Z', '2026-11-21T10:00:00.000Z'],
  ['2026-11-21t12:30:00.5+02:30', '2026-11-21T10:00:00.500Z'],
  ['2028-02-29T23:59:59.999999-05:00', '2028-03-01T04:59:59.999Z'],
  ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ['0001-01-01T01:00:00+01:00', '0001-01-01T00:00:00.000Z'],
  ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ['9999-12-31T22:59:59.999-01:00', '9999-12-31T23:59:59.999Z'],
];
const FUTURE = ACCEPTED.filter(([, utc]) => utc > '2100');

let h: Harness;
let org: TestOrg;
let projectId: string;
let taskId: string;

beforeAll(async () => {
  h = createHarness();
  org = await createOrg(h.db);
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Dates' })).body.id;
  taskId = (await as(h.app, org.liveKey).post('/v1/tasks', { title: 'Due', projectId })).body.id;
});
afterAll(() => h.close());

/** A bad timestamp must never reach the database: every list of the organization stays readable. */
afterEach(async () => {
  expect((await as(h.app, org.liveKey).get('/v1/tasks')).status).toBe(200);
  expect((await as(h.app, org.liveKey).get('/v1/api-keys')).status).toBe(200);
});

describe('task dueDate', () => {
  it.each(REFUSED)('refuses %j on create and on update, naming the field', async (dueDate) => {
    expectError(await as(h.app, org.liveKey).post('/v1/tasks', { title: 'x', projectId, dueDate }), 400, 'invalid_request', 'dueDate');
    expectError(await as(h.app, org.liveKey).patch(`/v1/tasks/${taskId}`, { dueDate }), 400, 'invalid_request', 'dueDate');
  });

  it.each(ACCEPTED)('stores %j as %s on create and on update, and reads it back', async (dueDate, utc) => {
    const created = await as(h.app, org.liveKey).post('/v1/tasks', { title: 'x', projectId, dueDate });
    expect({ status: created.status, dueDate: created.body.dueDate }).toEqual({ status: 201, dueDate: utc });
    expect((await as(h.app, org.liveKey).get(`/v1/tasks/${created.body.id}`)).body.dueDate).toBe(utc);

    await as(h.app, org.liveKey).patch(`/v1/tasks/${taskId}`, { dueDate: null }).expect(200);
    const updated = await as(h.app, org.liveKey).patch(`/v1/tasks/${taskId}`, { dueDate });
    expect({ status: updated.status, dueDate: updated.body.dueDate }).toEqual({ status: 200, dueDate: utc });
    expect((await as(h.app, org.liveKey).get(`/v1/tasks/${taskId}`)).body.dueDate).toBe(utc);
  });
});

describe('API key expiresAt', () => {
  it.each(REFUSED)('refuses %j, naming the field', async (expiresAt) => {
    expectError(await as(h.app, org.liveKey).post('/v1/api-keys', { name: 'x', expiresAt }), 400, 'invalid_request', 'expiresAt');
  });

  it.each(FUTURE)('stores %j as %s and lists it', async (expiresAt, utc) => {
    const created = await as(h.app, org.liveKey).post('/v1/api-keys', { name: 'x', expiresAt });
    expect({ status: created.status, expiresAt: created.body.expiresAt }).toEqual({ status: 201, expiresAt: utc });
    expect((await as(h.app, created.body.key).get('/v1/tasks')).status).toBe(200);
    const listed = await as(h.app, org.liveKey).get('/v1/api-keys?limit=100');
    expect(listed.body.data.find((key: { id: string }) => key.id === created.body.id)?.expiresAt).toBe(utc);
  });
});

import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { CLOSED_PORT } from '@test-support/processes';
import { listKeys, startTestStore, storeEnv, type TestStore } from '@test-support/embedded-store';
import { addMember, as, createHarness, createOrg, expectError, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess } from '@test-support/access-checks';

const MiB = 1024 * 1024;
const MAX_UPLOAD_BYTES = 3 * MiB;
const DOWNLOAD_TTL_MS = 15 * 60 * 1000;
/** A store nobody listens on must fail the request well within this. */
const FAST_MS = 5000;

let s3: TestStore;
let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;
let projectId: string;
/** A live file of `org`, for the security suites. */
let fileId: string;

beforeAll(async () => {
  s3 = await startTestStore();
  h = createHarness({
    ...storeEnv(s3),
    MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES),
  });
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
  projectId = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Assets' })).body.id;
  fileId = (await upload(org.liveKey, projectId).expect(201)).body.id;
});
afterAll(async () => {
  await h.close();
  await s3.close();
});

const ctx = () => ({ harness: h, org, otherOrg });

function post(app: Harness['app'], key: string) {
  return request(app).post('/v1/files').set('Authorization', `Bearer ${key}`);
}

/** A well-formed upload of `content` to `project`. */
function upload(key: string, project: string, content: Buffer = Buffer.from('hello, files'), filename = 'notes.txt', app = h.app) {
  return post(app, key).field('projectId', project).attach('file', content, { filename, contentType: 'text/plain' });
}

const keys = () => listKeys(s3.client);
const fileRows = (o: TestOrg) => h.db.file.count({ where: { organizationId: o.organization.id } });

/** Runs `act` and checks that it left no object in the bucket and no File row behind. */
async function expectNothingStored(act: () => Promise<void>): Promise<void> {
  const [keysBefore, rowsBefore] = await Promise.all([keys(), fileRows(org)]);
  await act();
  expect(await keys()).toEqual(keysBefore);
  expect(await fileRows(org)).toBe(rowsBefore);
}

describe('POST /v1/files', () => {
  itEnforcesAccess(ctx, () => ({ method: 'post', path: '/v1/files', permission: 'files:write' }), { namesResource: false });

  it('stores a few MB of binary and answers 201 with exactly the file record', async () => {
    const content = randomBytes(2.5 * MiB);
    const res = await post(h.app, org.liveKey)
      .field('projectId', projectId)
      .attach('file', content, { filename: 'blob.bin', contentType: 'application/octet-stream' });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^fil_[0-9A-Z]{26}$/),
      projectId,
      name: 'blob.bin',
      size: content.length,
      contentType: 'application/octet-stream',
      uploaderId: org.user.id,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(await keys()).toContain(`${org.organization.id}/live/${res.body.id}`);
  });

  it('answers 413 payload_too_large over MAX_UPLOAD_BYTES and keeps neither object nor row', async () => {
    await expectNothingStored(async () => {
      const res = await upload(org.liveKey, projectId, randomBytes(MAX_UPLOAD_BYTES + 1), 'big.bin');
      expectError(res, 413, 'payload_too_large');
      expect(res.body.error.type).toBe('validation_error');
    });
  });

  it.each<[string, string, (req: request.Test) => request.Test]>([
    ['no file part', 'file', (req) => req.field('projectId', projectId)],
    ['no projectId', 'projectId', (req) => req.attach('file', Buffer.from('x'), 'a.txt')],
    ['an empty projectId', 'projectId', (req) => req.field('projectId', '').attach('file', Buffer.from('x'), 'a.txt')],
    ['an unknown projectId', 'projectId', (req) => req.field('projectId', 'prj_unknown').attach('file', Buffer.from('x'), 'a.txt')],
    ['an unknown text field', 'folder', (req) => req.field('projectId', projectId).field('folder', 'x').attach('file', Buffer.from('x'), 'a.txt')],
    ['a file part under another name', 'attachment', (req) => req.field('projectId', projectId).attach('attachment', Buffer.from('x'), 'a.txt')],
    [
      'a second file part',
      'file',
      (req) => req.field('projectId', projectId).attach('file', Buffer.from('x'), 'a.txt').attach('extra', Buffer.from('y'), 'b.txt'),
    ],
  ])('refuses %s with 400 naming %s, keeping nothing', async (_case, param, build) => {
    await expectNothingStored(async () => {
      expectError(await build(post(h.app, org.liveKey)), 400, 'invalid_request', param);
    });
  });

  it("refuses another organization's project with 400 naming projectId, keeping nothing", async () => {
    const foreign = (await as(h.app, otherOrg.liveKey).post('/v1/projects', { name: 'Theirs' })).body.id;
    await expectNothingStored(async () => {
      expectError(await upload(org.liveKey, foreign), 400, 'invalid_request', 'projectId');
    });
  });

  it('answers 415 to a JSON body', async () => {
    expectError(await post(h.app, org.liveKey).send({ projectId }), 415, 'unsupported_media_type');
  });

  it.each([
    ['without a boundary', 'multipart/form-data', 'anything'],
    [
      'cut off mid-part',
      'multipart/form-data; boundary=XYZ',
      '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\npartial',
    ],
    ['with no part at all', 'multipart/form-data; boundary=XYZ', 'no boundary here'],
  ])('answers 400, not 500, to a multipart body %s', async (_case, contentType, body) => {
    await expectNothingStored(async () => {
      expectError(await post(h.app, org.liveKey).set('Content-Type', contentType).send(body), 400, 'invalid_request');
    });
  });

  it("refuses a guest's key with 403, whatever the key grants", async () => {
    const guest = await addMember(h.db, org, { role: 'guest' });
    expectError(await upload(guest.key, projectId), 403, 'forbidden');
  });

  it('writes a file.uploaded event whose data is the record', async () => {
    const own = await createOrg(h.db);
    const project = (await as(h.app, own.liveKey).post('/v1/projects', { name: 'Events' })).body.id;
    const record = (await upload(own.liveKey, project).expect(201)).body;
    const rows = await h.db.outboxEvent.findMany({ where: { organizationId: own.organization.id, type: { startsWith: 'file.' } } });
    expect(rows.map(({ type, mode, data }) => ({ type, mode, data }))).toEqual([{ type: 'file.uploaded', mode: 'live', data: record }]);
  });
});

describe('GET /v1/files', () => {
  let listProject: string;
  const ids: string[] = [];

  beforeAll(async () => {
    listProject = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Listed' })).body.id;
    for (const name of ['one.txt', 'two.txt', 'three.txt']) ids.push((await upload(org.liveKey, listProject, undefined, name).expect(201)).body.id);
  });

  itEnforcesAccess(ctx, () => ({ method: 'get', path: '/v1/files', permission: 'files:read' }), { namesResource: false });

  it("lists a project's files, newest first, in the pagination envelope", async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/files?projectId=${listProject}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((f: { id: string }) => f.id)).toEqual([...ids].reverse());
    expect(res.body.data[0]).toEqual((await as(h.app, org.liveKey).get(`/v1/files/${ids[2]}`)).body);
    expect(res.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, hasMore: false, nextCursor: null });
  });

  it('pages with limit and offset', async () => {
    const res = await as(h.app, org.liveKey).get(`/v1/files?projectId=${listProject}&limit=1&offset=1`);
    expect(res.body.data.map((f: { id: string }) => f.id)).toEqual([ids[1]]);
    expect(res.body.pagination).toEqual({ total: 3, limit: 1, offset: 1, hasMore: true, nextCursor: expect.any(String) });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['offset=-1', 'offset'],
    ['unknown=1', 'unknown'],
  ])('refuses ?%s naming %s', async (query, param) => {
    expectError(await as(h.app, org.liveKey).get(`/v1/files?${query}`), 400, 'invalid_request', param);
  });

  it("never shows another organization's or the other mode's files", async () => {
    expect((await as(h.app, otherOrg.liveKey).get(`/v1/files?projectId=${listProject}`)).body.pagination.total).toBe(0);
    expect((await as(h.app, org.testKey).get(`/v1/files?projectId=${listProject}`)).body.pagination.total).toBe(0);
  });
});

describe('GET /v1/files/{id}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'get', path: `/v1/files/${fileId}`, permission: 'files:read' }), { namesResource: true });

  it('returns the record as the upload answered it', async () => {
    const uploaded = (await upload(org.liveKey, projectId).expect(201)).body;
    const res = await as(h.app, org.liveKey).get(`/v1/files/${uploaded.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(uploaded);
  });

  it('answers 404 naming fileId for an unknown id', async () => {
    expectError(await as(h.app, org.liveKey).get('/v1/files/fil_missing'), 404, 'not_found', 'fileId');
  });
});

describe('GET /v1/files/{id}/download', () => {
  itEnforcesAccess(ctx, () => ({ method: 'get', path: `/v1/files/${fileId}/download`, permission: 'files:read' }), { namesResource: true });

  it('answers {url, expiresAt} valid for 15 minutes, and the URL serves the exact bytes', async () => {
    const content = randomBytes(2.5 * MiB);
    const id = (await upload(org.liveKey, projectId, content, 'photo.raw').expect(201)).body.id;

    const before = Date.now();
    const res = await as(h.app, org.liveKey).get(`/v1/files/${id}/download`);
    const after = Date.now();

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: expect.stringMatching(/^http:\/\//), expiresAt: expect.stringMatching(/\.\d{3}Z$/) });
    const expiresAt = Date.parse(res.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + DOWNLOAD_TTL_MS);
    expect(expiresAt).toBeLessThanOrEqual(after + DOWNLOAD_TTL_MS);

    const download = await fetch(res.body.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
  });
});

describe('DELETE /v1/files/{id}', () => {
  itEnforcesAccess(ctx, () => ({ method: 'delete', path: `/v1/files/${fileId}`, permission: 'files:write' }), { namesResource: true });

  it('answers 204, removes the object, and the file is gone', async () => {
    const id = (await upload(org.liveKey, projectId).expect(201)).body.id;
    const res = await as(h.app, org.liveKey).delete(`/v1/files/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await keys()).not.toContain(`${org.organization.id}/live/${id}`);
    expectError(await as(h.app, org.liveKey).get(`/v1/files/${id}`), 404, 'not_found', 'fileId');
  });

  it("leaves the file and its object alone when another organization's key tries", async () => {
    const id = (await upload(org.liveKey, projectId).expect(201)).body.id;
    expectError(await as(h.app, otherOrg.liveKey).delete(`/v1/files/${id}`), 404, 'not_found');
    expect(await keys()).toContain(`${org.organization.id}/live/${id}`);
    expect((await as(h.app, org.liveKey).get(`/v1/files/${id}`)).status).toBe(200);
  });

  it('writes a file.deleted event whose data is the record', async () => {
    const own = await createOrg(h.db);
    const project = (await as(h.app, own.liveKey).post('/v1/projects', { name: 'Events' })).body.id;
    const record = (await upload(own.liveKey, project).expect(201)).body;
    await as(h.app, own.liveKey).delete(`/v1/files/${record.id}`).expect(204);
    const rows = await h.db.outboxEvent.findMany({ where: { organizationId: own.organization.id, type: 'file.deleted' } });
    expect(rows.map(({ type, mode, data }) => ({ type, mode, data }))).toEqual([{ type: 'file.deleted', mode: 'live', data: record }]);
  });
});

describe('DELETE /v1/projects/{id}', () => {
  it("removes the project's files: their objects and their rows", async () => {
    const doomed = (await as(h.app, org.liveKey).post('/v1/projects', { name: 'Doomed' })).body.id;
    const ids = [(await upload(org.liveKey, doomed).expect(201)).body.id, (await upload(org.liveKey, doomed).expect(201)).body.id];

    await as(h.app, org.liveKey).delete(`/v1/projects/${doomed}`).expect(204);

    const remaining = await keys();
    for (const id of ids) expect(remaining).not.toContain(`${org.organization.id}/live/${id}`);
    expect(await h.db.file.count({ where: { projectId: doomed } })).toBe(0);
  });
});

describe('with the object store unreachable', () => {
  let down: Harness;

  beforeAll(async () => {
    down = createHarness({
      ...storeEnv(s3, `http://127.0.0.1:${CLOSED_PORT}`),
      MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES),
    });
  });
  afterAll(() => down.close());

  it('answers an upload 503 unavailable within seconds and creates no File row', async () => {
    const rowsBefore = await fileRows(org);
    const started = performance.now();

    const res = await upload(org.liveKey, projectId, randomBytes(64 * 1024), 'lost.bin', down.app);

    expect(performance.now() - started).toBeLessThan(FAST_MS);
    expectError(res, 503, 'unavailable');
    expect(res.body.error.type).toBe('api_error');
    expect(await fileRows(org)).toBe(rowsBefore);
  });

  it('still presigns download URLs, which need no connection to the store', async () => {
    const res = await as(down.app, org.liveKey).get(`/v1/files/${fileId}/download`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: expect.any(String), expiresAt: expect.any(String) });
  });

  it('answers a delete 503 and keeps the file', async () => {
    expectError(await as(down.app, org.liveKey).delete(`/v1/files/${fileId}`), 503, 'unavailable');
    expect((await as(h.app, org.liveKey).get(`/v1/files/${fileId}`)).status).toBe(200);
    expect(await keys()).toContain(`${org.organization.id}/live/${fileId}`);
  });
});

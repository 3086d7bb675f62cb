import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import fc from 'fast-check';
import type Joi from 'joi';
import { newId } from '@worktrack/db';
import { startTestStore, storeEnv, type TestStore } from '@test-support/embedded-store';
import { apiRoutes, publicRoutes } from '../src/routes';
import { createApiServer } from '../src/server';
import { addMember, as, createHarness, createOrg, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';

/*
 * Property-based fuzzing of every route of the route table and the public routes, through the
 * server main.ts runs. Requests are generated from each route's own joi schemas (known fields
 * with valid, borderline and junk values) plus garbage ids, %-escapes, NUL, lone surrogates,
 * `__proto__`, deep and huge bodies, wrong media types and encodings, oversized headers and keys
 * that fail authentication. Every answer must be below 500, carry an X-Request-Id and, unless
 * 2xx, the error body; every 2xx write must read back (200).
 *
 * FUZZ_RUNS sets the number of generated requests (read-backs come on top); FUZZ_SEED another seed.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 3_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);

interface FuzzRoute {
  method: string;
  template: string;
  body?: Joi.ObjectSchema;
  query?: Joi.ObjectSchema;
  multipart?: { fields: Joi.ObjectSchema; file: string };
}

const ROUTES: FuzzRoute[] = [
  ...[...apiRoutes, ...publicRoutes].map(({ method, path, body, query, multipart }) => ({ method, template: `/v1${path}`, body, query, multipart })),
  { method: 'get', template: '/healthz' },
  { method: 'get', template: '/readyz' },
];

const paramsOf = (template: string) => [...template.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/** The path parameter naming the records a collection template creates, e.g. `taskId` for /v1/tasks. */
const createdParam = (template: string) =>
  ROUTES.map((route) => route.template)
    .find((t) => t.startsWith(`${template}/:`) && !t.slice(template.length + 2).includes('/'))
    ?.slice(template.length + 2);

// ---- Live ids: the fixtures, then what the fuzz itself created (only those are deleted). ----

const fixtures: Record<string, string> = {};
const created: Record<string, string[]> = {};

/** A reference to a live id, resolved when the request is sent (ids appear as the run goes). */
class Live {
  constructor(
    readonly param: string,
    readonly pick: number,
  ) {}

  resolve(method: string): string {
    const own = created[this.param] ?? [];
    const candidates = method === 'delete' ? own : [...(this.param in fixtures ? [fixtures[this.param]!] : []), ...own];
    return candidates[this.pick % Math.max(candidates.length, 1)] ?? 'none';
  }
}

/** Body fields that name a record, and the path parameter whose ids they take. */
const FIELD_IDS: Record<string, string> = { projectId: 'projectId', assigneeId: 'userId', mentions: 'userId', token: 'token' };

// ---- Generators ----

const SPECIAL_TEXT = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFF',
  '\uD83D\uDE80',
  '%00',
  'constructor',
  "' OR 1=1 --",
  '9'.repeat(400),
  'x'.repeat(10_001),
];
const text = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom(...SPECIAL_TEXT));
const junk = fc.oneof(text, fc.jsonValue({ maxDepth: 3 }));
const ascii = fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));
const live = (param: string) => fc.nat().map((pick) => new Live(param, pick));

/** A public address literal: no DNS, and no worker runs here to deliver to it. */
const HOOK_URL = 'https://93.184.215.14/hooks';

/** Values for fields known by name: usual ones (valid, or at the edge of validity) and odd ones. */
const NAMED: Record<string, { usual: unknown[]; odd: unknown[] }> = {
  timestamp: {
    usual: [
      '2031-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '2030-06-30T12:00:00.5+05:30',
      '+010000-01-01T00:00:00Z',
      '0001-01-01T00:00:00+01:00',
      '2031-02-29T00:00:00Z',
    ],
    odd: ['0001-01-01T00:00:00Z', '2026-01-01T00:00:00', '2026-01-01', 'tomorrow'],
  },
  url: { usual: [HOOK_URL], odd: ['http://127.0.0.1:9/x', 'https://169.254.169.254/latest', 'https://10.0.0.1/', 'ftp://1.1.1.1/', 'not a url'] },
  color: { usual: ['#abc', '#1A2b3c', null], odd: ['red', '#12345', '#abcg'] },
};

/** Every string a joi description lists as allowed (enum values), at any depth. */
function allowedStrings(description: unknown): string[] {
  if (typeof description !== 'object' || description === null) return [];
  return Object.entries(description).flatMap(([key, value]) =>
    key === 'allow' && Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : allowedStrings(value),
  );
}

/** In a clean request the usual values only; in others, now and then an odd one. */
const usually = <T>(clean: boolean, usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  clean ? usual : fc.oneof({ weight: 4, arbitrary: usual }, { weight: 1, arbitrary: odd });

/** Values for one field: usual ones from its schema and name; in unclean requests now and then odd ones or junk. */
function valueFor(name: string, description: Joi.Description, clean: boolean): fc.Arbitrary<unknown> {
  const many = description.type === 'array' || description.type === 'alternatives';
  const allowed = allowedStrings(description);
  const param = FIELD_IDS[name];
  const named = NAMED[/(Date|At)$/.test(name) ? 'timestamp' : name];
  const usual: fc.Arbitrary<unknown>[] = [];
  if (allowed.length > 0) usual.push(many ? fc.subarray(allowed, { minLength: 1, maxLength: Math.min(3, allowed.length) }) : fc.constantFrom(...allowed));
  if (param) usual.push(many ? fc.array(live(param), { maxLength: 2 }) : live(param));
  if (named) usual.push(fc.constantFrom(...named.usual));
  if (name === 'email') usual.push(fc.emailAddress());
  if (usual.length === 0 && description.type === 'boolean') usual.push(fc.boolean());
  if (usual.length === 0 && description.type === 'number') usual.push(fc.integer({ min: 0, max: 100 }));
  if (usual.length === 0 && description.type === 'string') usual.push(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }));
  if (usual.length === 0 && description.type === 'object') {
    usual.push(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 3 }));
  }
  const odd = named ? fc.oneof(junk, fc.constantFrom(...named.odd)) : junk;
  return usual.length > 0 ? usually(clean, fc.oneof(...usual), odd) : odd;
}

const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; proto?: unknown }
  | { kind: 'raw'; text: string }
  | { kind: 'multipart'; fields: [string, unknown][]; file: string; filename: string | null; encodedFilename: boolean };

/** Objects of a schema's fields: its required ones always, others now and then. */
function fieldsOf(schema: Joi.ObjectSchema | undefined, clean: boolean): fc.Arbitrary<Record<string, unknown>> {
  const keys: Record<string, Joi.Description> = schema?.describe().keys ?? {};
  const required = Object.keys(keys).filter((name) => (keys[name]!.flags as { presence?: string } | undefined)?.presence === 'required');
  const values = Object.entries(keys).map(([name, description]): [string, fc.Arbitrary<unknown>] => [name, valueFor(name, description, clean)]);
  return fc.record(Object.fromEntries(values), { requiredKeys: required });
}

function bodyFor(route: FuzzRoute, clean: boolean): fc.Arbitrary<Body> {
  const fields = fieldsOf(route.body, clean);
  const json = fields.map((value) => ({ kind: 'json' as const, value }));
  const file = route.multipart?.file ?? 'file';
  const formFields = fieldsOf(route.multipart?.fields, clean).map((values) => Object.entries(values));
  const multipart = fc.record({
    kind: fc.constant('multipart' as const),
    fields: clean
      ? formFields
      : fc.tuple(formFields, fc.array(fc.tuple(fc.oneof(text, fc.constant('__proto__')), text), { maxLength: 2 })).map(([a, b]) => [...a, ...b]),
    file: clean ? fc.constant(file) : fc.constantFrom(file, file, 'other'),
    filename: clean ? text : fc.option(text),
    // RFC 5987's filename*=UTF-8''... carries any byte, NUL included.
    encodedFilename: fc.boolean(),
  });
  if (clean) return route.multipart ? multipart : json;
  return fc.oneof(
    { weight: 8, arbitrary: json },
    { weight: route.multipart ? 8 : 1, arbitrary: multipart },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fields, proto: junk }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fc.dictionary(text, junk, { maxKeys: 3 }) }) },
    { weight: 1, arbitrary: junk.map((value) => ({ kind: 'json' as const, value })) },
    { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('', '{', '{"a":1,}', 'nul\u0000', '\uFEFF{}', deep(10_000), `[${deep(5_000)}]`, `{"name":"${'x'.repeat(1_100_000)}"}`)
        .map((raw) => ({ kind: 'raw' as const, text: raw })),
    },
  );
}

const BAD_ESCAPES = ['%', '%E0%A4%A', '%ED%A0%80', '%C0%80', '%FF', '%00', 'a%00b', '%2F', '..', '%uD800'];

/** Percent-encodes the UTF-8 bytes of a string; a lone surrogate goes as U+FFFD, as any client sends it. */
const encode = (s: string) =>
  [...Buffer.from(s)].map((b) => (/[\w.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`)).join('');

const badSegment = fc.oneof(text.map(encode), fc.constantFrom(...BAD_ESCAPES));

/** A query value as sent: an enum list comma-separated, anything else as JSON or text. */
const queryText = (value: unknown) =>
  Array.isArray(value) ? value.join(',') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);

function queryFor(route: FuzzRoute, clean: boolean): fc.Arbitrary<[string, Live | string][]> {
  const keys: Record<string, Joi.Description> = route.query?.describe().keys ?? {};
  const known = Object.entries(keys).map(([name, description]) =>
    fc.tuple(
      fc.constant(name),
      usually(
        clean,
        valueFor(name, description, clean).map((v) => (v instanceof Live ? v : encode(queryText(v)))),
        fc.constantFrom(...BAD_ESCAPES),
      ),
    ),
  );
  const knownOnly = known.length > 0 ? fc.array(fc.oneof(...known), { maxLength: 3 }) : fc.constant<[string, Live | string][]>([]);
  const unknown: fc.Arbitrary<[string, Live | string]> = fc.tuple(
    fc.oneof({ weight: 5, arbitrary: text.map(encode) }, { weight: 1, arbitrary: fc.constant('__proto__') }),
    text.map(encode),
  );
  return usually(clean, knownOnly, fc.array(fc.oneof(...known, unknown), { minLength: 1, maxLength: 3 }));
}

type Auth = 'admin' | 'test' | 'readonly' | 'none' | 'malformed' | 'unknown';

const specFor = (route: FuzzRoute, clean: boolean) =>
  fc.record({
    route: fc.constant(route),
    method: usually(clean, fc.constant(route.method), fc.constantFrom('put', 'options')),
    segments: fc.array(usually<number | string>(clean, fc.nat(), badSegment), { minLength: 3, maxLength: 3 }),
    query: queryFor(route, clean),
    body: bodyFor(route, clean),
    contentType: usually(
      clean,
      fc.constant<string | null>('application/json'),
      fc.constantFrom(
        'application/json; charset=utf-8',
        'application/json; charset=latin1',
        'application/json; charset=bogus',
        'application/merge-patch+json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        null,
      ),
    ),
    encoding: usually(clean, fc.constant('identity'), fc.constantFrom('gzip', 'deflate', 'br', 'zstd', 'corrupt', 'bogus')),
    auth: usually(clean, fc.constant<Auth>('admin'), fc.constantFrom<Auth>('test', 'readonly', 'none', 'malformed', 'unknown')),
    idempotencyKey: fc.option(usually(clean, ascii, fc.constant('k'.repeat(300))), { freq: 4 }),
    requestId: fc.option(ascii, { freq: 4 }),
    oversizedHeaders: usually(clean, fc.constant(false), fc.constantFrom(false, false, false, true)),
  });

/** A third of the requests are clean (valid or nearly), so that writes succeed and are read back. */
const requestSpec = fc.oneof(
  ...ROUTES.map((route) => fc.oneof({ weight: 1, arbitrary: specFor(route, true) }, { weight: 2, arbitrary: specFor(route, false) })),
);

type Spec = typeof requestSpec extends fc.Arbitrary<infer T> ? T : never;

// ---- Sending and checking ----

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

let h: Harness;
let s3: TestStore;
let server: http.Server;
const agent = new http.Agent({ keepAlive: true });
const keys: Record<Auth, string | null> = { admin: null, test: null, readonly: null, none: null, malformed: null, unknown: null };

function send(req: Sent, freshConnection = false): Promise<Answer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      { host: '127.0.0.1', port, method: req.method.toUpperCase(), path: req.path, headers: req.headers, agent: freshConnection ? false : agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

const COMPRESS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: zlib.gzipSync,
  deflate: zlib.deflateSync,
  br: zlib.brotliCompressSync,
  zstd: zlib.zstdCompressSync,
};

/** Turns a generated spec into bytes on the wire, resolving live ids now. */
function build(spec: Spec): Sent {
  const { route, method } = spec;
  const params = paramsOf(route.template);
  let path = route.template;
  params.forEach((param, i) => {
    const choice = spec.segments[i]!;
    path = path.replace(`:${param}`, typeof choice === 'number' ? encode(new Live(param, choice).resolve(method)) : choice);
  });
  if (spec.query.length > 0) path += `?${spec.query.map(([k, v]) => `${k}=${v instanceof Live ? encode(v.resolve(method)) : v}`).join('&')}`;

  const headers: Record<string, string> = {};
  const key = keys[spec.auth];
  if (key) headers.authorization = `Bearer ${key}`;
  if (spec.auth === 'malformed') headers.authorization = 'Bearer not-a-key';
  if (spec.auth === 'unknown') headers.authorization = `Bearer tk_live_${'x'.repeat(32)}`;
  if (spec.idempotencyKey !== null) headers['idempotency-key'] = spec.idempotencyKey;
  if (spec.requestId !== null) headers['x-request-id'] = spec.requestId;
  if (spec.oversizedHeaders) return { method, path, headers: { ...headers, 'x-padding': 'p'.repeat(17_000) } };

  const resolveLive = (_key: string, value: unknown) => (value instanceof Live ? value.resolve(method) : value);
  let body: Buffer;
  switch (spec.body.kind) {
    case 'none':
      return { method, path, headers };
    case 'raw':
      body = Buffer.from(spec.body.text);
      break;
    case 'json': {
      const json = JSON.stringify(spec.body.value, resolveLive) ?? 'null';
      const proto = spec.body.proto === undefined ? '' : `"__proto__":${JSON.stringify(spec.body.proto) ?? 'null'}`;
      body = Buffer.from(proto && json.startsWith('{') ? `{${proto}${json === '{}' ? '' : ','}${json.slice(1)}` : json);
      break;
    }
    case 'multipart': {
      const boundary = 'fuzzboundary';
      const parts = spec.body.fields.map(
        ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${resolveLive('', value)}\r\n`,
      );
      const { file, filename, encodedFilename } = spec.body;
      const disposition = encodedFilename ? `filename*=UTF-8''${encode(filename ?? '')}` : `filename="${filename}"`;
      if (filename !== null)
        parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${file}"; ${disposition}\r\nContent-Type: text/plain\r\n\r\nfuzz\r\n`);
      body = Buffer.from(`${parts.join('')}--${boundary}--\r\n`);
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
      break;
    }
  }
  if (spec.body.kind !== 'multipart' && spec.contentType !== null) headers['content-type'] = spec.contentType;
  if (spec.encoding !== 'identity') headers['content-encoding'] = spec.encoding === 'corrupt' ? 'gzip' : spec.encoding;
  if (COMPRESS[spec.encoding]) body = COMPRESS[spec.encoding]!(body);
  return { method, path, headers: { ...headers, 'content-length': String(body.length) }, body };
}

interface Finding {
  request: string;
  /** The write whose read-back this was. */
  after?: string;
  status: number;
  problem: string;
  answer: string;
}

const findings: Finding[] = [];
const statuses = new Map<number, number>();

function isErrorBody(text: string): boolean {
  try {
    const body = JSON.parse(text) as { error?: Record<string, unknown> };
    const { code, message, param, type, ...rest } = body.error ?? {};
    return (
      Object.keys(body).length === 1 &&
      typeof code === 'string' &&
      typeof message === 'string' &&
      typeof type === 'string' &&
      (param === null || typeof param === 'string') &&
      Object.keys(rest).length === 0
    );
  } catch {
    return false;
  }
}

const describeRequest = (req: Sent) => {
  const body = req.body ? ` ${JSON.stringify(req.body.toString('utf8').slice(0, 300))}` : '';
  return `${req.method.toUpperCase()} ${req.path.slice(0, 300)} ${JSON.stringify({ ...req.headers, 'x-padding': undefined })}${body}`;
};

/** Sends one request and records what is wrong with its answer; a read-back names its write and must answer 200. */
async function exchange(req: Sent, readBackOf?: Sent): Promise<Answer> {
  const answer = await send(req, 'x-padding' in req.headers);
  statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  const problems = [
    answer.status >= 500 && 'a 5xx',
    !answer.headers['x-request-id'] && 'no X-Request-Id',
    answer.status >= 300 && answer.status !== 304 && !isErrorBody(answer.text) && 'no error body',
    readBackOf && answer.status !== 200 && 'a 2xx write that does not read back',
  ].filter((p): p is string => typeof p === 'string');
  for (const problem of problems) {
    findings.push({
      request: describeRequest(req),
      ...(readBackOf && { after: describeRequest(readBackOf) }),
      status: answer.status,
      problem,
      answer: answer.text.slice(0, 300),
    });
  }
  return answer;
}

/**
 * After a 2xx write, reads back with the same key: the record created (`<path>/<id>`), the record
 * written, and the collection above it, wherever the route table has a GET for them.
 */
async function readBack(spec: Spec, sent: Sent, answer: Answer): Promise<void> {
  let written: { id?: unknown; token?: unknown };
  try {
    written = JSON.parse(answer.text) as typeof written;
  } catch {
    return;
  }
  const path = sent.path.split('?')[0]!;
  const { template } = spec.route;
  const parent = (p: string) => p.slice(0, p.lastIndexOf('/'));
  const targets: [string, string][] = [
    [template, path],
    [parent(template), parent(path)],
  ];
  const param = createdParam(template);
  if (spec.method === 'post' && typeof written.id === 'string' && param) {
    (created[param] ??= []).push(written.id);
    targets.unshift([`${template}/:${param}`, `${path}/${encode(written.id)}`]);
  }
  if (typeof written.token === 'string') (created.token ??= []).push(written.token);

  for (const [t, p] of targets) {
    if (ROUTES.some((route) => route.method === 'get' && route.template === t)) {
      await exchange({ method: 'get', path: p, headers: sent.headers.authorization ? { authorization: sent.headers.authorization } : {} }, sent);
    }
  }
}

async function fuzzOnce(spec: Spec): Promise<void> {
  const sent = build(spec);
  const answer = await exchange(sent);
  // A replay (Idempotency-Key) repeats the first answer: its record may have changed or gone since.
  if (answer.status >= 300 || answer.headers['idempotent-replayed']) return;
  if (spec.method === 'post' || spec.method === 'patch') await readBack(spec, sent, answer);
  if (spec.method === 'delete') {
    for (const ids of Object.values(created)) {
      const gone = ids.findIndex((id) => sent.path.split('?')[0]!.endsWith(`/${encode(id)}`));
      if (gone >= 0) ids.splice(gone, 1);
    }
  }
}

// ---- Fixtures ----

let org: TestOrg;

beforeAll(async () => {
  s3 = await startTestStore();
  h = createHarness({
    ...storeEnv(s3),
    WEBHOOK_ALLOWED_HOSTS: '',
    // Unknown keys are part of the fuzz; the failed-auth throttle must not shut the admin out.
    AUTH_FAILURES_PER_MINUTE: '1000000',
  });
  server = createApiServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  org = await createOrg(h.db, { plan: 'enterprise' });
  keys.admin = org.liveKey;
  keys.test = org.testKey;
  keys.readonly = await keyWith(h.db, org, ['tasks:read']);
  const admin = as(h.app, org.liveKey);
  const projectId: string = (await admin.post('/v1/projects', { name: 'Fuzz' })).body.id;
  const taskId: string = (await admin.post('/v1/tasks', { title: 'Fuzz', projectId })).body.id;
  const webhookId: string = (await admin.post('/v1/webhooks', { url: HOOK_URL, events: ['*'] })).body.id;
  const deliveryId = newId('delivery');
  const delivery = { id: deliveryId, organizationId: org.organization.id, mode: 'live' as const, webhookId, eventType: 'task.created', body: '{}' };
  await h.db.delivery.create({ data: { ...delivery, nextAttemptAt: new Date(Date.now() + 24 * 3600 * 1000) } });
  Object.assign(fixtures, {
    projectId,
    taskId,
    webhookId,
    deliveryId,
    userId: (await addMember(h.db, org, { role: 'member' })).userId,
    commentId: (await admin.post(`/v1/tasks/${taskId}/comments`, { content: 'Fuzz' })).body.id,
    keyId: (await admin.post('/v1/api-keys', { name: 'Fuzz' })).body.id,
    fileId: (await admin.post('/v1/files').field('projectId', projectId).attach('file', Buffer.from('fuzz'), 'fuzz.txt')).body.id,
  });
  const invitation = (await admin.post('/v1/members/invite', { email: 'fuzz@example.com', role: 'guest' })).body;
  Object.assign(fixtures, { invitationId: invitation.id, token: invitation.token });
  expect(Object.values(fixtures).every((id) => typeof id === 'string')).toBe(true);
});
afterAll(async () => {
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
  await h.close();
  await s3.close();
});

it(
  'answers every generated request below 500, with an X-Request-Id, the error body unless 2xx, and writes that read back',
  async () => {
    await fc.assert(fc.asyncProperty(requestSpec, fuzzOnce), { seed: SEED, numRuns: RUNS });
    if (process.env.FUZZ_RUNS) {
      const requests = [...statuses.values()].reduce((a, b) => a + b, 0);
      const fiveXX = [...statuses].filter(([status]) => status >= 500).reduce((n, [, count]) => n + count, 0);
      console.info(JSON.stringify({ seed: SEED, generated: RUNS, requests, fiveXX, findings: findings.length, statuses: Object.fromEntries(statuses) }));
    }
    const problems: Record<string, number> = {};
    for (const { problem } of findings) problems[problem] = (problems[problem] ?? 0) + 1;
    expect({ problems, examples: findings.slice(0, 10) }).toEqual({ problems: {}, examples: [] });
  },
  60_000 + RUNS * 50,
);

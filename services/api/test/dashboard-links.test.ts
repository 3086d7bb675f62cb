import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { exitCode, runBundled } from '@test-support/processes';
import { addMember, as, createHarness, createOrg, expectError, keyWith, type Harness, type TestOrg } from '@test-support/api-harness';
import { itEnforcesAccess } from '@test-support/access-checks';
import { followLink } from '@test-support/dashboard-session';

const PUBLIC_BASE_URL = 'https://worktrack.example.com';
const MINUTE_MS = 60_000;

let h: Harness;
let org: TestOrg;
let otherOrg: TestOrg;

beforeAll(async () => {
  h = createHarness({ PUBLIC_BASE_URL });
  [org, otherOrg] = await Promise.all([createOrg(h.db), createOrg(h.db)]);
});
afterAll(() => h.close());

/** A sign-in link opened against the app in-process (the link names the public address), and its page's button pressed. */
const signIn = (url: string) => followLink(request.agent(h.app), url);

describe('POST /v1/dashboard-links', () => {
  describe('access', () => {
    itEnforcesAccess(
      () => ({ harness: h, org, otherOrg }),
      () => ({ method: 'post', path: '/v1/dashboard-links', permission: 'members:read' }),
      { namesResource: false },
    );
  });

  it("returns a one-time link for the key's own user, valid 15 minutes", async () => {
    const t0 = Date.now();
    const res = await as(h.app, org.liveKey).post('/v1/dashboard-links');
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['expiresAt', 'url']);
    expect(res.body.url).toMatch(/^https:\/\/worktrack\.example\.com\/dashboard\/sign-in\?token=[A-Za-z0-9_-]{43}$/);
    const expiresAt = Date.parse(res.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(t0 + 15 * MINUTE_MS - 1_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 15 * MINUTE_MS);
    const link = await h.db.dashboardLink.findFirstOrThrow({ where: { organizationId: org.organization.id }, orderBy: { id: 'desc' } });
    expect(link.userId).toBe(org.user.id);
    expect(link.tokenHash).not.toContain(new URL(res.body.url).searchParams.get('token'));

    const opened = await signIn(res.body.url);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/dashboard');
  });

  it('gives every role a link to its own session, when the key holds all of its role', async () => {
    for (const role of ['member', 'guest'] as const) {
      const member = await addMember(h.db, org, { role });
      expect((await as(h.app, member.key).post('/v1/dashboard-links')).status).toBe(201);
    }
  });

  it('refuses a test key, and a key restricted below its role: the session would act with the whole role', async () => {
    expectError(await as(h.app, org.testKey).post('/v1/dashboard-links'), 403, 'forbidden');
    const restricted = await keyWith(h.db, org, ['members:read', 'tasks:read']);
    expectError(await as(h.app, restricted).post('/v1/dashboard-links'), 403, 'forbidden');
    const guest = await addMember(h.db, org, { role: 'guest', permissions: ['members:read'] });
    expectError(await as(h.app, guest.key).post('/v1/dashboard-links'), 403, 'forbidden');
  });

  it('refuses a body', async () => {
    expectError(await as(h.app, org.liveKey).post('/v1/dashboard-links', { email: 'x@example.com' }), 400, 'invalid_request', 'email');
  });
});

describe('pnpm cli dashboard-link', () => {
  async function cli(...args: string[]) {
    return cliWith({ PUBLIC_BASE_URL }, ...args);
  }

  async function cliWith(env: NodeJS.ProcessEnv, ...args: string[]) {
    const child = runBundled('cli', ['dashboard-link', ...args], { DATABASE_URL: process.env.DATABASE_URL, ...env });
    const code = await exitCode(child);
    return { code, output: child.output() };
  }

  it('prints a link that opens a session, once', async () => {
    const printed = await cli('--email', org.user.email);
    expect(printed.code).toBe(0);
    const url = /https:\/\/\S+/.exec(printed.output)?.[0];
    expect(printed.output).toContain(`Sign in to ${org.organization.name} as ${org.user.email} (admin)`);
    expect((await signIn(url!)).status).toBe(303);
    expect((await signIn(url!)).status).toBe(401);
  }, 30_000);

  it('asks for --org when the user belongs to several organizations, and takes it', async () => {
    const email = `both-${randomUUID()}@example.com`;
    for (const owner of [org, otherOrg]) {
      const user = await h.db.user.upsert({ where: { email }, create: { id: `usr_${randomUUID().replaceAll('-', '')}`, email }, update: {} });
      await h.db.membership.create({ data: { organizationId: owner.organization.id, userId: user.id, role: 'member' } });
    }
    const ambiguous = await cli('--email', email);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.output).toContain('choose one with --org');
    expect(ambiguous.output).toContain(org.organization.id);

    // With no PUBLIC_BASE_URL, the link names the API's own address (HOST, PORT).
    const chosen = await cliWith({ PUBLIC_BASE_URL: undefined, PORT: '3400' }, '--email', email, '--org', otherOrg.organization.id, '--json');
    expect(chosen.code).toBe(0);
    expect(JSON.parse(chosen.output)).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:3400\/dashboard\/sign-in\?token=/),
      expiresAt: expect.any(String),
      organizationId: otherOrg.organization.id,
      role: 'member',
    });
  }, 30_000);

  it('refuses an unknown email and a missing one', async () => {
    const unknown = await cli('--email', 'nobody@example.com');
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain('nobody@example.com is not a member of any organization');
    const missing = await cli();
    expect(missing.code).toBe(2);
    expect(missing.output).toContain('--email is required');
  }, 30_000);
});

import request from 'supertest';
import { addMember, as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { csrfOf, linkFor, pathOf, signedIn } from '@test-support/dashboard-session';

/* The dashboard's sessions, forms and roles, over HTTP as a browser would (the browser itself: dashboard-e2e). */

let h: Harness;
let org: TestOrg;
const admin = () => ({ organizationId: org.organization.id, userId: org.user.id });

beforeAll(async () => {
  h = createHarness();
  org = await createOrg(h.db);
});
afterAll(() => h.close());

async function memberOf(owner: TestOrg, role: 'admin' | 'member' | 'guest') {
  const { userId } = await addMember(h.db, owner, { role });
  return { organizationId: owner.organization.id, userId };
}

describe('signing in with a link', () => {
  const cookiesOf = (res: request.Response) => (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];

  it('opens a page whose one button signs in, once: an HttpOnly, SameSite=Lax cookie for 12 hours, then the overview', async () => {
    const link = await linkFor(h, admin());
    const token = new URL(link.url).searchParams.get('token')!;
    const browser = request.agent(h.app);
    // Opening the link (as a mail scanner does too) moves its token out of the address and spends nothing.
    const opened = await browser.get(pathOf(link.url));
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/dashboard/sign-in/link');
    expect(cookiesOf(opened)).toEqual([
      expect.stringMatching(/^wt_link=[^;]+; Max-Age=900; Path=\/dashboard\/sign-in; Expires=[^;]+; HttpOnly; SameSite=Lax$/),
    ]);
    for (let i = 0; i < 2; i += 1) {
      const page = await browser.get('/dashboard/sign-in/link');
      expect(page.status).toBe(200);
      expect(page.text).toContain(`This link signs <strong>${org.user.email}</strong> in to <strong>${org.organization.name}</strong>`);
      expect(page.text).toMatch(/<form method="post" action="\/dashboard\/sign-in\/link"/);
      expect(page.text).not.toContain(token);
      expect(cookiesOf(page).some((c) => c.startsWith('wt_session='))).toBe(false);
    }
    expect(await h.db.dashboardLink.count({ where: { userId: org.user.id, usedAt: { not: null } } })).toBe(0);

    const res = await browser.post('/dashboard/sign-in/link').type('form').send({});
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/dashboard');
    const cookie = cookiesOf(res).find((c) => c.startsWith('wt_session='))!;
    expect(cookie).toMatch(/; Max-Age=43200; Path=\/dashboard; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
    expect(cookiesOf(res).find((c) => c.startsWith('wt_link='))).toMatch(/^wt_link=; Path=\/dashboard\/sign-in; Expires=Thu, 01 Jan 1970/);

    const overview = await request(h.app).get('/dashboard').set('Cookie', cookie.split(';')[0]!);
    expect(overview.status).toBe(200);
    expect(overview.text).toContain(org.organization.name);
    expect(overview.text).toContain(org.user.email);

    const again = request.agent(h.app);
    await again.get(pathOf(link.url)).expect(303);
    const spent = await again.post('/dashboard/sign-in/link').type('form').send({});
    expect(spent.status).toBe(401);
    expect(spent.text).toContain('This sign-in link does not work');
    expect(cookiesOf(spent).some((c) => c.startsWith('wt_session='))).toBe(false);
  });

  it('refuses a link past its 15 minutes, and an unknown one, on its page and at its button', async () => {
    const link = await linkFor(h, admin());
    await h.db.dashboardLink.updateMany({ where: { expiresAt: link.expiresAt }, data: { expiresAt: new Date(Date.now() - 1) } });
    for (const url of [pathOf(link.url), '/dashboard/sign-in?token=not-a-token']) {
      const browser = request.agent(h.app);
      await browser.get(url).expect(303);
      expect((await browser.get('/dashboard/sign-in/link')).status).toBe(401);
      await browser.get(url).expect(303);
      expect((await browser.post('/dashboard/sign-in/link').type('form').send({})).status).toBe(401);
    }
    // Without an opened link, the page and its button have nothing to sign in with.
    expect((await request(h.app).get('/dashboard/sign-in/link')).status).toBe(401);
    expect((await request(h.app).post('/dashboard/sign-in/link').type('form').send({})).status).toBe(401);
  });

  it('takes the button only from this site: another site, or Origin null, signs no one in and spends nothing', async () => {
    const link = await linkFor(h, admin());
    const browser = request.agent(h.app);
    await browser.get(pathOf(link.url)).expect(303);
    const press = () => browser.post('/dashboard/sign-in/link').type('form').send({});
    for (const res of [
      await press().set('Sec-Fetch-Site', 'cross-site'),
      await press().set('Origin', 'https://elsewhere.example'),
      await press().set('Origin', 'null'),
    ]) {
      expect(res.status).toBe(403);
      expect(cookiesOf(res).some((c) => c.startsWith('wt_session='))).toBe(false);
    }
    const ours = await press().set('Origin', new URL(h.deps.config.publicBaseUrl).origin).set('Sec-Fetch-Site', 'same-origin');
    expect(ours.status).toBe(303);
  });

  it('sends a visitor without a session to the sign-in page, which says how to get a link', async () => {
    const res = await request(h.app).get('/dashboard/webhooks');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/dashboard/sign-in');
    const page = await request(h.app).get('/dashboard/sign-in');
    expect(page.status).toBe(200);
    expect(page.text).toContain('pnpm cli dashboard-link --email');
    expect(page.text).toContain('/v1/dashboard-links');
  });

  it('ends the session after 12 hours', async () => {
    const agent = await signedIn(h, admin());
    expect((await agent.get('/dashboard')).status).toBe(200);
    await h.db.dashboardSession.updateMany({ where: { userId: org.user.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    const res = await agent.get('/dashboard');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/dashboard/sign-in');
  });

  it('signs out: the cookie no longer opens anything', async () => {
    const agent = await signedIn(h, admin());
    const page = await agent.get('/dashboard');
    const out = await agent
      .post('/dashboard/sign-out')
      .type('form')
      .send({ _csrf: csrfOf(page.text) });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/dashboard/sign-in?signed-out');
    expect((await agent.get('/dashboard')).status).toBe(303);
  });

  it('serves pages that nobody may frame, cache or load from elsewhere', async () => {
    const agent = await signedIn(h, admin());
    const res = await agent.get('/dashboard');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('sends the security headers with every answer, the API reference and errors too, and no HSTS over http', async () => {
    const agent = await signedIn(h, admin());
    const answers: [string, request.Response][] = [
      ['/dashboard', await agent.get('/dashboard')],
      ['/dashboard/no-such-page', await agent.get('/dashboard/no-such-page')],
      ['/dashboard/sign-in', await request(h.app).get('/dashboard/sign-in')],
      ['/docs', await request(h.app).get('/docs')],
      ['/docs/init.js', await request(h.app).get('/docs/init.js')],
      ['/v1/openapi.json', await request(h.app).get('/v1/openapi.json')],
      ['/v1/no-such-route', await request(h.app).get('/v1/no-such-route')],
      ['/no-such-page', await request(h.app).get('/no-such-page')],
    ];
    for (const [path, res] of answers) {
      expect({ path, csp: res.headers['content-security-policy'] }).toEqual({ path, csp: expect.stringContaining("frame-ancestors 'none'") });
      expect({ path, frame: res.headers['x-frame-options'], sniff: res.headers['x-content-type-options'], referrer: res.headers['referrer-policy'] }).toEqual({
        path,
        frame: 'DENY',
        sniff: 'nosniff',
        referrer: 'same-origin',
      });
      expect({ path, hsts: res.headers['strict-transport-security'] }).toEqual({ path, hsts: undefined });
    }
  });

  it('tells browsers to use https alone when PUBLIC_BASE_URL is https', async () => {
    const https = createHarness({ PUBLIC_BASE_URL: 'https://worktrack.example.com' });
    try {
      for (const path of ['/dashboard/sign-in', '/docs', '/v1/openapi.json', '/no-such-page']) {
        const res = await request(https.app).get(path);
        expect({ path, hsts: res.headers['strict-transport-security'] }).toEqual({ path, hsts: 'max-age=63072000; includeSubDomains' });
      }
    } finally {
      await https.close();
    }
  });

  it('clears the session cookie only for a request that carried it: a POST without it (from another site) signs no one out', async () => {
    const agent = await signedIn(h, admin());
    const bare = await request(h.app).post('/dashboard/sign-out').type('form').send({});
    expect(bare.status).toBe(401);
    expect(bare.headers['set-cookie']).toBeUndefined();
    expect((await agent.get('/dashboard')).status).toBe(200);
    // A cookie that names no session is cleared.
    const stale = await request(h.app).get('/dashboard').set('Cookie', 'wt_session=ended');
    expect(stale.status).toBe(303);
    expect(stale.headers['set-cookie']).toEqual([expect.stringMatching(/^wt_session=; Path=\/dashboard; Expires=Thu, 01 Jan 1970/)]);
  });

  it('names an icon it serves, on signed-in and signed-out pages, so no browser asks for a missing favicon', async () => {
    const agent = await signedIn(h, admin());
    for (const page of [await agent.get('/dashboard'), await request(h.app).get('/dashboard/sign-in')]) {
      const href = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml"/.exec(page.text)?.[1];
      expect(href).toMatch(/^\/dashboard\/assets\/favicon\.svg\?v=/);
      const icon = await request(h.app).get(href!);
      expect(icon.status).toBe(200);
      expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    }
  });
});

describe('CSRF', () => {
  let agent: Awaited<ReturnType<typeof signedIn>>;
  let token: string;
  beforeAll(async () => {
    agent = await signedIn(h, admin());
    token = csrfOf((await agent.get('/dashboard/projects')).text);
  });
  const projects = () => h.db.project.count({ where: { organizationId: org.organization.id } });

  it('refuses a form without a token, with a forged one and with another session’s, and does nothing', async () => {
    const before = await projects();
    const other = await signedIn(h, admin());
    const othersToken = csrfOf((await other.get('/dashboard/projects')).text);
    for (const form of [{ name: 'No token' }, { name: 'Forged', _csrf: `${'a'.repeat(64)}.${'b'.repeat(64)}` }, { name: 'Borrowed', _csrf: othersToken }]) {
      const res = await agent.post('/dashboard/projects').type('form').send(form);
      expect(res.status).toBe(403);
      expect(res.text).toContain('This form has expired or did not come from this dashboard');
      expect(res.text).toMatch(/<title>This form has expired/);
      expect(res.text).not.toContain('_csrf token');
    }
    expect(await projects()).toBe(before);
  });

  it('refuses a token without its cookie (a cross-site form cannot send it)', async () => {
    const cookies = (await agent.get('/dashboard/projects')).request.cookies as string;
    const session = cookies.split('; ').find((c) => c.startsWith('wt_session='))!;
    const res = await request(h.app).post('/dashboard/projects').set('Cookie', session).type('form').send({ name: 'Cross-site', _csrf: token });
    expect(res.status).toBe(403);
  });

  it('accepts the page’s own token', async () => {
    const res = await agent.post('/dashboard/projects').type('form').send({ name: 'With token', _csrf: token });
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^\/dashboard\/projects\/prj_\w+\?done=project-created$/);
  });
});

describe('accepting an invitation', () => {
  const cookiesOf = (res: request.Response) => (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];

  it('drops the token from the address at once, never echoes it, and joins with the page’s own form', async () => {
    const email = `joiner-${Date.now().toString(36)}@example.com`;
    const { token } = (await as(h.app, org.liveKey).post('/v1/members/invite', { email, role: 'member' }).expect(201)).body;
    const browser = request.agent(h.app);
    const opened = await browser.get(`/dashboard/invitations/accept?token=${token}`);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/dashboard/invitations/accept');
    expect(cookiesOf(opened)).toEqual([
      expect.stringMatching(/^wt_invitation=[^;]+; Max-Age=3600; Path=\/dashboard\/invitations\/accept; Expires=[^;]+; HttpOnly; SameSite=Lax$/),
    ]);
    expect(opened.text).not.toContain(token);

    const page = await browser.get('/dashboard/invitations/accept');
    expect(page.status).toBe(200);
    expect(page.text).toContain(email);
    expect(page.text).not.toContain(token);

    // A refused name keeps the invitation for the next try, and still does not show the token.
    const refused = await browser.post('/dashboard/invitations/accept').type('form').send({ name: 'Ann\r\nBcc: all@example.com' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('control characters');
    expect(refused.text).not.toContain(token);
    // From another site (or Origin null), the form is refused.
    expect((await browser.post('/dashboard/invitations/accept').set('Origin', 'null').type('form').send({ name: 'Ann' })).status).toBe(403);

    const joined = await browser.post('/dashboard/invitations/accept').type('form').send({ name: 'Ann' });
    expect(joined.status).toBe(303);
    expect(joined.headers.location).toBe('/dashboard?done=joined');
    expect(cookiesOf(joined)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^wt_invitation=; Path=\/dashboard\/invitations\/accept; Expires=Thu, 01 Jan 1970/),
        expect.stringMatching(/^wt_session=/),
      ]),
    );
    expect((await browser.get('/dashboard')).text).toContain(email);
  });

  it('shows the page without an opened invitation as one that does not work', async () => {
    const res = await request(h.app).get('/dashboard/invitations/accept');
    expect(res.status).toBe(400);
    expect(res.text).toContain('This invitation does not work');
  });
});

describe('roles', () => {
  it('shows a guest no admin section or form, and refuses its pages and actions', async () => {
    const guest = await signedIn(h, await memberOf(org, 'guest'));
    const overview = await guest.get('/dashboard');
    expect(overview.text).not.toContain('href="/dashboard/keys"');
    expect(overview.text).toContain('href="/dashboard/tasks"');
    const token = csrfOf(overview.text);

    const keys = await guest.get('/dashboard/keys');
    expect(keys.status).toBe(403);
    expect(keys.text).toContain('Not allowed');
    // Subscriptions and their deliveries are the admins' alone (docs/decisions.md#tenancy-and-keys): no section, and the page refused.
    expect(overview.text).not.toContain('href="/dashboard/webhooks"');
    const webhooks = await guest.get('/dashboard/webhooks');
    expect(webhooks.status).toBe(403);
    expect(webhooks.text).not.toContain('Create a subscription');
    const webhook = await as(h.app, org.liveKey).post('/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['*'] });
    // Nor a subscription's page, nor a delivery's (its payload and the receiver's answer): refused for the role, not unknown.
    for (const path of [`/dashboard/webhooks/${webhook.body.id}`, `/dashboard/webhooks/${webhook.body.id}/deliveries/dlv_unknown`]) {
      const page = await guest.get(path);
      expect({ path, status: page.status }).toEqual({ path, status: 403 });
      expect(page.text).not.toContain('93.184.215.14/hooks');
    }
    const attempts: [string, Record<string, string>][] = [
      ['/dashboard/webhooks', { url: 'https://93.184.215.14/x', events: '*' }],
      [`/dashboard/webhooks/${webhook.body.id}/delete`, {}],
      ['/dashboard/keys', { name: 'Escalate', permissions: '*' }],
      ['/dashboard/members/invite', { email: 'friend@example.com', role: 'admin' }],
      ['/dashboard/projects', { name: 'Guest project' }],
    ];
    for (const [path, form] of attempts) {
      const res = await guest
        .post(path)
        .type('form')
        .send({ ...form, _csrf: token });
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      // Said in a person's terms: they hold a role, not a key with permissions.
      expect(res.text).toContain('Your role does not allow this');
      expect(res.text).not.toMatch(/:write|API key/);
    }
    expect((await as(h.app, org.liveKey).get(`/v1/webhooks/${webhook.body.id}`)).status).toBe(200);
    expect(await h.db.invitation.count({ where: { email: 'friend@example.com' } })).toBe(0);

    const members = await guest.get('/dashboard/members');
    expect(members.status).toBe(200);
    expect(members.text).not.toContain('Invite a member');
  });

  it('ends a removed member’s session at once', async () => {
    const member = await memberOf(org, 'member');
    const session = await signedIn(h, member);
    expect((await session.get('/dashboard/tasks')).status).toBe(200);
    await as(h.app, org.liveKey).delete(`/v1/members/${member.userId}`).expect(204);
    const res = await session.get('/dashboard/tasks');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/dashboard/sign-in');
    expect(await h.db.dashboardSession.count({ where: { userId: member.userId } })).toBe(0);
  });

  it('keeps a member (no webhooks:*) out of webhooks, and follows a role change at the next page', async () => {
    const member = await memberOf(org, 'admin');
    const session = await signedIn(h, member);
    expect((await session.get('/dashboard/webhooks')).status).toBe(200);
    await as(h.app, org.liveKey).patch(`/v1/members/${member.userId}`, { role: 'member' }).expect(200);
    const refused = await session.get('/dashboard/webhooks');
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('href="/dashboard/webhooks"');
  });

  it('offers events:read in the key form, says every role has it, and makes a key holding it alone', async () => {
    const agent = await signedIn(h, admin());
    const form = await agent.get('/dashboard/keys');
    expect(form.text).toMatch(/<input type="checkbox" name="permissions" value="events:read"/);
    expect(form.text).toContain('events:read reads the events (every role has it)');
    const created = await agent
      .post('/dashboard/keys')
      .type('form')
      .send({ name: 'Events reader', mode: 'live', permissions: 'events:read', _csrf: csrfOf(form.text) });
    expect(created.status).toBe(303);
    const key = await h.db.apiKey.findFirstOrThrow({ where: { organizationId: org.organization.id, name: 'Events reader' } });
    expect(key.permissions).toEqual(['events:read']);
  });
});

describe('test mode', () => {
  it('never shows live data, and switches back', async () => {
    const owner = await createOrg(h.db);
    const live = await as(h.app, owner.liveKey).post('/v1/projects', { name: 'Live launch plan' });
    const test = await as(h.app, owner.testKey).post('/v1/projects', { name: 'Sandbox project' });
    await as(h.app, owner.liveKey).post('/v1/tasks', { title: 'Live-only task', projectId: live.body.id });
    await as(h.app, owner.liveKey).post('/v1/webhooks', { url: 'https://93.184.215.14/live-hooks', events: ['*'] });
    const agent = await signedIn(h, { organizationId: owner.organization.id, userId: owner.user.id });

    const token = csrfOf((await agent.get('/dashboard')).text);
    const switched = await agent.post('/dashboard/mode').type('form').send({ mode: 'test', next: '/dashboard/projects', _csrf: token });
    expect(switched.status).toBe(303);
    expect(switched.headers.location).toBe('/dashboard/projects?done=mode-switched');

    const pages = await Promise.all(
      ['/dashboard', '/dashboard/projects?archived=true', '/dashboard/tasks', '/dashboard/webhooks'].map((path) => agent.get(path)),
    );
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.text).toContain('Test mode: you are looking at test data');
      for (const secret of ['Live launch plan', 'Live-only task', 'live-hooks', live.body.id]) expect(page.text).not.toContain(secret);
    }
    expect(pages[1]!.text).toContain('Sandbox project');
    expect((await agent.get(`/dashboard/projects/${live.body.id}`)).status).toBe(404);
    expect((await agent.get(`/dashboard/projects/${test.body.id}`)).status).toBe(200);
    const keys = await agent.get('/dashboard/keys');
    expect(keys.text).toContain('managed in live mode');
    expect(keys.text).not.toContain('<table');

    const back = await agent.post('/dashboard/mode').type('form').send({ mode: 'live', next: 'https://evil.example.com/', _csrf: token });
    expect(back.headers.location).toBe('/dashboard?done=mode-switched');
    expect((await agent.get('/dashboard/projects')).text).toContain('Live launch plan');
  });
});

describe('the webhook form', () => {
  let agent: Awaited<ReturnType<typeof signedIn>>;
  let token: string;
  beforeAll(async () => {
    agent = await signedIn(h, admin());
    token = csrfOf((await agent.get('/dashboard/webhooks')).text);
  });
  const record = async (id: string) => (await as(h.app, org.liveKey).get(`/v1/webhooks/${id}`)).body;
  /** The value of a page's input (an empty one is rendered as a bare `value`), or null without one. */
  const inputValue = (html: string, name: string) => {
    const input = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0];
    if (!input) throw new Error(`no ${name} input on the page`);
    const value = /\svalue(?:="([^"]*)")?[\s/>]/.exec(input);
    return value ? (value[1] ?? '') : null;
  };

  it('offers both caps on create, 10 at once and no rate limit to begin with, and creates with what was typed', async () => {
    const page = await agent.get('/dashboard/webhooks');
    expect(page.text).toContain('<label for="f-maxConcurrency">Requests at once</label>');
    expect(page.text).toContain('<label for="f-rateLimit">Requests per second (optional)</label>');
    expect(page.text).toMatch(/<input type="number"[^>]*min="1" max="100"[^>]*name="maxConcurrency"/);
    expect(inputValue(page.text, 'maxConcurrency')).toBe('10');
    expect(inputValue(page.text, 'rateLimit')).toBe('');

    const res = await agent
      .post('/dashboard/webhooks')
      .type('form')
      .send({ url: 'https://93.184.215.14/caps', events: '*', maxConcurrency: '4', rateLimit: '25', _csrf: token });
    expect(res.status).toBe(303);
    const id = /\/dashboard\/webhooks\/(whk_\w+)/.exec(res.headers.location!)![1]!;
    expect(await record(id)).toMatchObject({ maxConcurrency: 4, rateLimit: 25 });
  });

  it('creates with the defaults when both are left empty', async () => {
    const res = await agent
      .post('/dashboard/webhooks')
      .type('form')
      .send({ url: 'https://93.184.215.14/defaults', events: '*', maxConcurrency: '', rateLimit: '', _csrf: token });
    expect(res.status).toBe(303);
    const id = /\/dashboard\/webhooks\/(whk_\w+)/.exec(res.headers.location!)![1]!;
    expect(await record(id)).toMatchObject({ maxConcurrency: 10, rateLimit: null });
  });

  it('edits both, shows them on the page and in the form, and an emptied rate limit removes it', async () => {
    const created = await as(h.app, org.liveKey).post('/v1/webhooks', { url: 'https://93.184.215.14/edit', events: ['*'], rateLimit: 9 });
    const path = `/dashboard/webhooks/${created.body.id}`;
    const page = await agent.get(path);
    expect(inputValue(page.text, 'maxConcurrency')).toBe('10');
    expect(inputValue(page.text, 'rateLimit')).toBe('9');
    expect(page.text).toContain('10 requests at once, at most 9 per second');

    const form = { url: 'https://93.184.215.14/edit', events: '*', description: '', _csrf: token };
    const saved = await agent
      .post(path)
      .type('form')
      .send({ ...form, maxConcurrency: '7', rateLimit: '' });
    expect(saved.status).toBe(303);
    expect(await record(created.body.id)).toMatchObject({ maxConcurrency: 7, rateLimit: null });
    const after = await agent.get(path);
    expect(inputValue(after.text, 'maxConcurrency')).toBe('7');
    expect(inputValue(after.text, 'rateLimit')).toBe('');
    expect(after.text).toContain('7 requests at once, no rate limit');
  });

  it('sets the order on create and edit, and shows it on the page and in the form', async () => {
    const selected = (html: string) => /<select[^>]*name="ordering"[^>]*>[\s\S]*?<option value="(\w+)" selected/.exec(html)?.[1];
    const created = await agent
      .post('/dashboard/webhooks')
      .type('form')
      .send({ url: 'https://93.184.215.14/ordered', events: '*', ordering: 'resource', _csrf: token });
    expect(created.status).toBe(303);
    const path = /\/dashboard\/webhooks\/whk_\w+/.exec(created.headers.location!)![0];
    expect(await record(path.split('/').pop()!)).toMatchObject({ ordering: 'resource' });
    const page = await agent.get(path);
    expect(selected(page.text)).toBe('resource');
    expect(page.text).toContain('In order, per resource');

    const saved = await agent
      .post(path)
      .type('form')
      .send({ url: 'https://93.184.215.14/ordered', events: '*', description: '', ordering: 'none', _csrf: token });
    expect(saved.status).toBe(303);
    expect(await record(path.split('/').pop()!)).toMatchObject({ ordering: 'none' });
    const after = await agent.get(path);
    expect(selected(after.text)).toBe('none');
    expect(after.text).toContain('Any order');
  });

  it.each([
    [{ maxConcurrency: '0' }, 'maxConcurrency'],
    [{ maxConcurrency: '2.5' }, 'maxConcurrency'],
    [{ rateLimit: '10001' }, 'rateLimit'],
    [{ rateLimit: 'fast' }, 'rateLimit'],
  ])('refuses %j beside the field, keeps what was typed, and changes nothing', async (fields, param) => {
    const created = await as(h.app, org.liveKey).post('/v1/webhooks', { url: 'https://93.184.215.14/bounds', events: ['*'], maxConcurrency: 3 });
    const path = `/dashboard/webhooks/${created.body.id}`;
    const typed = { maxConcurrency: '3', rateLimit: '', ...fields };
    const res = await agent
      .post(path)
      .type('form')
      .send({ url: 'https://93.184.215.14/bounds', events: '*', ...typed, _csrf: token });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(new RegExp(`<input[^>]*id="f-${param}"[^>]*aria-invalid="true"`));
    expect(res.text).toContain(`href="#f-${param}"`);
    expect(inputValue(res.text, param)).toBe(typed[param as keyof typeof typed]);
    expect(await record(created.body.id)).toMatchObject({ maxConcurrency: 3, rateLimit: null });
  });

  it.each([
    ['http://93.184.215.14/plain', 'URL must use https'],
    ['https://10.1.2.3/inside', 'host is not a public address'],
  ])('refuses %s in words for the person, without the setting only an operator can change', async (url, reason) => {
    const res = await agent.post('/dashboard/webhooks').type('form').send({ url, events: '*', _csrf: token });
    expect(res.status).toBe(400);
    expect(res.text).toContain(reason);
    expect(res.text).not.toContain('WEBHOOK_ALLOWED_HOSTS');
  });

  it('hints at the URL rule without saying that a host the service allows (a local receiver) is refused', async () => {
    const form = (await agent.get('/dashboard/webhooks')).text;
    expect(form).toContain('https and a public address, unless this service allows the host for local testing');
    expect(form).not.toContain('not a private address');
  });

  it('shows a receiver’s pause on the webhook page and in the list while it holds', async () => {
    const created = await as(h.app, org.liveKey).post('/v1/webhooks', { url: 'https://93.184.215.14/paused', events: ['*'] });
    const path = `/dashboard/webhooks/${created.body.id}`;
    expect((await agent.get(path)).text).not.toContain('<dt>Paused</dt>');

    const until = new Date(Date.now() + 3600 * 1000);
    await h.db.webhook.update({ where: { id: created.body.id }, data: { pausedUntil: until } });
    const page = await agent.get(path);
    expect(page.text).toContain('<dt>Paused</dt>');
    expect(page.text).toContain(`<time datetime="${until.toISOString()}">`);
    expect(page.text).toContain('answered 429 or 503 with Retry-After');
    const list = await agent.get('/dashboard/webhooks?limit=100');
    expect(list.text).toMatch(new RegExp(`href="${path}">[^]*?</th>[^]*?<span class="tag">paused</span>`));
  });
});

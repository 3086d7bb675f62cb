import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createHarness, createOrg, type Harness } from '@test-support/api-harness';
import { startSmtpInbox, type SmtpInbox } from '@test-support/smtp-inbox';
import { waitFor } from '@test-support/wait-for';

/*
 * Signing in by email over HTTP, against a real SMTP server (the flow in a browser: dashboard-e2e):
 * how often one client may have an address mailed and may ask at all (no one else's asking holds a member back),
 * and that only the dashboard's own form may ask.
 * Behind a trusted proxy, so that each test is a client address of its own (X-Forwarded-For).
 */

let h: Harness;
let inbox: SmtpInbox;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  h = createHarness({ SMTP_URL: inbox.url, TRUST_PROXY: 'true' });
});
afterAll(async () => {
  await h.close();
  await inbox.close();
});

let clients = 0;
const newClient = () => `203.0.113.${++clients}`;
const stranger = () => `${randomUUID()}@example.com`;

const ask = (email: string, client: string) => request(h.app).post('/dashboard/sign-in').set('X-Forwarded-For', client).type('form').send({ email });

/** What a browser would be shown: the status and where it is sent, or the page's heading. */
const answerOf = (res: request.Response) => `${res.status} ${res.headers.location ?? /<h1[^>]*>([^<]*)</.exec(res.text)?.[1]}`;

const mailsTo = (email: string) => inbox.received.filter((mail) => mail.to.includes(email)).length;

describe('signing in by email', () => {
  it('has one client send one address at most 5 links an hour, and answers a stranger’s address alike', async () => {
    const member = (await createOrg(h.db)).user.email;
    const answers = async (email: string) => {
      const client = newClient();
      const given: string[] = [];
      // The sixth in capitals: one address, however it is written.
      for (const written of [...Array(5).fill(email), email.toUpperCase()]) given.push(answerOf(await ask(written, client)));
      return given;
    };
    const sent = '303 /dashboard/sign-in?sent';
    const expected = [...Array(5).fill(sent), '429 Too many sign-in requests'];
    expect(await answers(member)).toEqual(expected);
    expect(await answers(stranger())).toEqual(expected);
    await waitFor(() => Promise.resolve(mailsTo(member) === 5 ? true : undefined));
    // The window is an hour, not 15 minutes.
    const windows = await h.deps.redis.keys(`${h.deps.config.redisPrefix}:dashboard-sign-in:client-email:*`);
    for (const key of windows) expect(await h.deps.redis.ttl(key)).toBeGreaterThan(45 * 60);
  });

  it('never holds back a member’s own link for what strangers asked for their address', async () => {
    const member = (await createOrg(h.db)).user.email;
    // Strangers, from three clients, ask for the member's address until each is refused.
    for (const client of [newClient(), newClient(), newClient()]) {
      for (let i = 0; i < 5; i += 1) expect((await ask(member, client)).status).toBe(303);
      expect((await ask(member, client)).status).toBe(429);
    }
    await waitFor(() => Promise.resolve(mailsTo(member) === 15 ? true : undefined));
    // The member, from their own client, gets their link at once.
    expect(answerOf(await ask(member, newClient()))).toBe('303 /dashboard/sign-in?sent');
    await waitFor(() => Promise.resolve(mailsTo(member) === 16 ? true : undefined));
  });

  it('takes at most 20 requests from one client address in 15 minutes, whatever addresses they name', async () => {
    const client = newClient();
    for (let i = 0; i < 20; i += 1) expect((await ask(stranger(), client)).status).toBe(303);
    const refused = await ask(stranger(), client);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('from this network, too often');
    expect((await ask(stranger(), newClient())).status).toBe(303);
  });

  it('refuses the form when the browser says another site sent it, and mails nothing for it', async () => {
    const member = (await createOrg(h.db)).user.email;
    const crossSite = await ask(member, newClient()).set('Sec-Fetch-Site', 'cross-site');
    const otherOrigin = await ask(member, newClient()).set('Origin', 'https://elsewhere.example');
    // A sandboxed frame or a data: page says null, which is no origin of ours.
    const nullOrigin = await ask(member, newClient()).set('Origin', 'null');
    for (const res of [crossSite, otherOrigin, nullOrigin]) {
      expect(res.status).toBe(403);
      expect(res.text).toContain('did not come from this dashboard');
    }
    // The dashboard's own form (same origin) is taken; its mail is then the only one the address got.
    expect((await ask(member, newClient()).set('Sec-Fetch-Site', 'same-origin')).status).toBe(303);
    await waitFor(() => Promise.resolve(mailsTo(member) > 0 ? true : undefined));
    expect(mailsTo(member)).toBe(1);
  });
});

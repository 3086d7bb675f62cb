import { addMember, as, createHarness, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { receiversClosedAfterEach } from '@test-support/receiver';
import { startSmtpInbox, type SmtpInbox } from '@test-support/smtp-inbox';
import { waitFor } from '@test-support/wait-for';
import { startTestWorker } from '@test-support/worker-harness';
import { announceDisabled } from '../src/handlers/announce-disabled';

// The mail to an organization's admins when its subscription is disabled after failed deliveries
// (docs/decisions.md#email-and-invitations): the shipped worker disables it after the last retry and
// mails over SMTP to a real server, whose mails the test reads.
const base = 'https://worktrack.example';
let h: Harness;
let worker: ReturnType<typeof startTestWorker>;
let inbox: SmtpInbox;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  const mail = { SMTP_URL: inbox.url, PUBLIC_BASE_URL: base };
  h = createHarness({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', ...mail });
  worker = startTestWorker({ prefix: h.deps.config.redisPrefix, env: mail });
});
afterAll(async () => {
  await worker?.close();
  await h?.close();
  await inbox?.close();
});

const receiverFor = receiversClosedAfterEach();
const DISABLED = /was disabled$/;
const noticesTo = (address: string) => inbox.received.filter((mail) => mail.to.includes(address) && DISABLED.test(mail.subject));

/** A project created, so an event the subscription fails to take; resolves once its last retry disabled it. */
async function failUntilDisabled(org: TestOrg, webhookId: string) {
  await as(h.app, org.liveKey).post('/v1/projects', { name: 'Unheard' }).expect(201);
  return waitFor(async () => {
    const webhook = await h.db.webhook.findUniqueOrThrow({ where: { id: webhookId } });
    return webhook.status === 'disabled' ? webhook : undefined;
  });
}

/** Resolves once each address has this many notices. */
const noticesArrived = (addresses: string[], count: number) =>
  waitFor(async () => (addresses.every((address) => noticesTo(address).length >= count) ? true : undefined));

describe('the notice of a subscription disabled after failed deliveries', () => {
  it("mails each admin of its organization once per disable, and nobody else: not a member, not another organization's admin", async () => {
    const org = await createOrg(h.db);
    const secondAdmin = await addMember(h.db, org, { role: 'admin' });
    const member = await addMember(h.db, org, { role: 'member' });
    const other = await createOrg(h.db);
    const admins = [org.user.email, `${secondAdmin.userId}@example.com`];
    const outsiders = [`${member.userId}@example.com`, other.user.email];
    const receiver = await receiverFor({ status: 503 });
    const subscribed = await as(h.app, org.liveKey)
      .post('/v1/webhooks', { url: receiver.url, events: ['project.created'] })
      .expect(201);
    const webhookId = subscribed.body.id as string;

    const disabled = await failUntilDisabled(org, webhookId);
    expect(disabled.disabledReason).toBe('delivery_failures');
    await noticesArrived(admins, 1);
    for (const admin of admins) {
      const [notice] = noticesTo(admin);
      expect(notice!.subject).toBe(`A webhook subscription of ${org.organization.name} was disabled`);
      expect(notice!.text).toContain(`The subscription to ${receiver.url} was disabled`);
      expect(notice!.text).toContain("The endpoint's last answer: HTTP 503.");
      expect(inbox.linkIn(notice!, base)).toBe(`${base}/dashboard/webhooks/${webhookId}`);
    }

    // Announced again for the same disable (another worker that saw the last retry fail): nothing more.
    const sent = inbox.received.length;
    await announceDisabled({ data: h.deps.unscoped, mailer: h.deps.mailer, publicBaseUrl: base }, webhookId);
    expect(inbox.received).toHaveLength(sent);

    // Re-enabled, then disabled again: a new notice.
    await as(h.app, org.liveKey).patch(`/v1/webhooks/${webhookId}`, { status: 'active' }).expect(200);
    const again = await failUntilDisabled(org, webhookId);
    expect(again.disabledAt!.getTime()).toBeGreaterThan(disabled.disabledAt!.getTime());
    await noticesArrived(admins, 2);

    for (const admin of admins) expect(noticesTo(admin)).toHaveLength(2);
    for (const outsider of outsiders) expect(noticesTo(outsider)).toEqual([]);
    expect(inbox.received).toHaveLength(4);
  });
});

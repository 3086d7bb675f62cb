import { as, createOrg, type Harness } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { startReceiver } from '@test-support/receiver';
import { createHarnessWithWorker } from '@test-support/worker-harness';

const CONCURRENCY = 2;
const ANSWER_AFTER_MS = 150;

let h: Harness;

beforeAll(() => {
  h = createHarnessWithWorker({ WORKER_CONCURRENCY: String(CONCURRENCY) });
});
afterAll(() => h.close());

describe('WORKER_CONCURRENCY', () => {
  it("bounds the attempts in flight, an event's first attempts and the retries' alike", async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    // The first request fails, so a retry (a delivery job) runs beside the first attempts.
    const receiver = await startReceiver((n) => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      // Registered before the receiver's own timer, so it runs first: the count drops as the answer leaves.
      setTimeout(() => inFlight--, ANSWER_AFTER_MS);
      return { status: n === 0 ? 500 : 200, delayMs: ANSWER_AFTER_MS };
    });
    try {
      const org = await createOrg(h.db);
      const subscriptions = 5;
      for (let i = 0; i < subscriptions; i++)
        await as(h.app, org.liveKey)
          .post('/v1/webhooks', { url: receiver.url, events: ['project.created'] })
          .expect(201);
      await as(h.app, org.liveKey).post('/v1/projects', { name: 'Busy' }).expect(201);

      await receiver.waitForCount(subscriptions + 1);
      await waitFor(async () =>
        (await h.db.delivery.count({ where: { organizationId: org.organization.id, status: 'succeeded' } })) === subscriptions ? true : undefined,
      );
      expect(mostInFlight).toBe(CONCURRENCY);
    } finally {
      await receiver.close();
    }
  });
});

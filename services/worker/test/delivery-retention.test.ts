import { randomBytes } from 'node:crypto';
import { idBoundaryAt, type IdKind } from '@worktrack/db';
import { as, createOrg, type Harness, type TestOrg } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { startReceiver } from '@test-support/receiver';
import { createHarnessWithWorker } from '@test-support/worker-harness';

/*
 * DELIVERY_RETENTION_DAYS: the shipped worker's sweep deletes the finished deliveries created before
 * the window, with their attempts, and leaves alone what is inside it (and pending deliveries of any
 * age); the delivery log still shows everything kept. Old rows are seeded in SQL.
 */

let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let org: TestOrg;

beforeAll(async () => {
  h = createHarnessWithWorker({ DELIVERY_RETENTION_DAYS: '30' });
  receiver = await startReceiver();
  org = await createOrg(h.db);
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const DAY_MS = 24 * 3_600_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);
/** An id as one made at `at` would be: ids sort by creation time. */
const idMadeAt = (kind: IdKind, at: Date) => idBoundaryAt(kind, at) + randomBytes(8).toString('hex').toUpperCase();

/**
 * A delivery created `days` ago with `attempts` attempts, inserted in SQL as the worker would have left it.
 * One statement: the running worker's sweep must never see the finished delivery without its attempts.
 */
async function seedDelivery(webhookId: string, days: number, status: 'succeeded' | 'failed' | 'pending', attempts: number): Promise<string> {
  const createdAt = daysAgo(days);
  const id = idMadeAt('delivery', createdAt);
  // A pending one waits for a retry far ahead, so the running worker leaves it be.
  const nextAttemptAt = status === 'pending' ? new Date(Date.now() + DAY_MS) : null;
  const attemptIds = Array.from({ length: attempts }, () => idMadeAt('attempt', createdAt));
  await h.pool.query(
    `WITH delivery AS (
       INSERT INTO "Delivery" (id, "organizationId", mode, "webhookId", "eventType", body, status, "attemptCount", "nextAttemptAt", "lastAttemptAt", "createdAt", "updatedAt")
       VALUES ($1, $2, 'live', $3, 'task.created', '{}', $4::"DeliveryStatus", $5, $6, $7, $7, $7)
       RETURNING id)
     INSERT INTO "DeliveryAttempt" (id, "deliveryId", "attemptNumber", "attemptedAt", "responseStatus", "responseTimeMs")
     SELECT attempt.id, delivery.id, attempt.n, $7, 500, 12 FROM delivery, unnest($8::text[]) WITH ORDINALITY AS attempt(id, n)`,
    [id, org.organization.id, webhookId, status, attempts, nextAttemptAt, createdAt, attemptIds],
  );
  return id;
}

async function rowsLeft(ids: string[]): Promise<{ deliveries: string[]; attempts: number }> {
  const deliveries = await h.db.delivery.findMany({ where: { id: { in: ids } }, select: { id: true }, orderBy: { id: 'asc' } });
  const attempts = await h.db.deliveryAttempt.count({ where: { deliveryId: { in: ids } } });
  return { deliveries: deliveries.map((d) => d.id), attempts };
}

describe('delivery retention', () => {
  it("deletes finished deliveries and their attempts past DELIVERY_RETENTION_DAYS, and keeps the window's, pending ones and the delivery log", async () => {
    const webhook = await as(h.app, org.liveKey).post('/v1/webhooks', { url: receiver.url, events: ['project.created'], secret: 'secret_known_secret' });
    const webhookId = webhook.body.id as string;

    const expired = [await seedDelivery(webhookId, 45, 'succeeded', 1), await seedDelivery(webhookId, 31, 'failed', 7)];
    const kept = [await seedDelivery(webhookId, 29, 'succeeded', 2), await seedDelivery(webhookId, 40, 'pending', 3)];
    // And one made now, end to end.
    await as(h.app, org.liveKey).post('/v1/projects', { name: 'Within the window' });
    const [fresh] = await receiver.waitForCount(1);
    const freshId = fresh!.json.deliveryId;

    // The worker's sweep runs every 200 ms in the tests.
    await waitFor(async () => ((await rowsLeft(expired)).deliveries.length === 0 ? true : undefined));

    expect(await rowsLeft(expired)).toEqual({ deliveries: [], attempts: 0 });
    expect(await rowsLeft(kept)).toEqual({ deliveries: [...kept].sort(), attempts: 5 });

    const log = await waitFor(async () => {
      const res = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries`);
      return res.body.data.some((d: { id: string; status: string }) => d.id === freshId && d.status === 'succeeded') ? res.body : undefined;
    });
    expect(log.data.map((d: { id: string }) => d.id).sort()).toEqual([...kept, freshId].sort());
    const detail = await as(h.app, org.liveKey).get(`/v1/webhooks/${webhookId}/deliveries/${kept[0]}`);
    expect(detail.body.attempts).toHaveLength(2);
  });
});

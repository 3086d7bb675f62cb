import { randomUUID } from 'node:crypto';
import { createDatabase, type Database } from '@worktrack/db';
import { createOrg, type TestOrg } from '@test-support/api-harness';
import { expectCommitOrder, taskOf, versionOf } from '@test-support/commit-order';
import { waitFor } from '@test-support/wait-for';
import { startReceiver } from '@test-support/receiver';
import { startSentinelTopology, type SentinelTopology } from '@test-support/redis-topologies';
import { call, startServices } from '@test-support/shipped-services';
import { expectStreamsOfOneKey } from '@test-support/stream-checks';

// The API and the worker on a Sentinel-managed Redis (a master, two replicas, three Sentinels),
// through a failover under load: the master SIGKILLed, a replica promoted.
const PORTS = { redis: 27100, api: 27120, workerHealth: 27121 };
const DOWN_AFTER_MS = 5_000;

let topology: SentinelTopology;
let services: Awaited<ReturnType<typeof startServices>>;
let database: Database;

beforeAll(async () => {
  topology = await startSentinelTopology(PORTS.redis, { downAfterMs: DOWN_AFTER_MS });
  services = await startServices({
    REDIS_SENTINELS: topology.sentinels,
    REDIS_SENTINEL_MASTER: topology.masterName,
    REDIS_PREFIX: `wt-test-${randomUUID().slice(0, 8)}`,
    PORT: String(PORTS.api),
    WORKER_HEALTH_PORT: String(PORTS.workerHealth),
  });
  database = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
}, 60_000);
afterAll(async () => {
  await services?.close();
  await database?.close();
  await topology?.stop();
});

async function subscribedOrganization(receiverUrl: string, subscription: object = { events: ['task.created'] }): Promise<{ org: TestOrg; projectId: string }> {
  const org = await createOrg(database.db);
  const api = (method: string, path: string, body?: object) => call(services.api.url, org.liveKey, method, path, body);
  expect((await api('POST', '/v1/webhooks', { url: receiverUrl, ...subscription })).status).toBe(201);
  const project = await api('POST', '/v1/projects', { name: 'Sentinel' });
  expect(project.status).toBe(201);
  return { org, projectId: project.body!.id };
}

const UPDATES = 3;

/**
 * Tasks of an organization changed one request per `step`: each created as `v0`, then PATCHed to `v1`
 * .. `v3`. `versions` holds each task's versions that an acknowledged request (201, 200) made: its
 * commit order.
 */
function changedTasks({ org, projectId }: { org: TestOrg; projectId: string }) {
  const versions = new Map<string, number[]>();
  const statuses = new Map<number, number>();
  let task: { id: string; next: number } | undefined;
  return {
    versions,
    statuses,
    async step() {
      const request = task
        ? call(services.api.url, org.liveKey, 'PATCH', `/v1/tasks/${task.id}`, { title: `v${task.next}` })
        : call(services.api.url, org.liveKey, 'POST', '/v1/tasks', { title: 'v0', projectId });
      const res = await request.catch(() => ({ status: 0, body: null }));
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (!task) {
        if (res.status !== 201) return;
        task = { id: res.body!.id, next: 1 };
        versions.set(task.id, [0]);
        return;
      }
      if (res.status === 200) versions.get(task.id)!.push(task.next);
      task = task.next === UPDATES ? undefined : { id: task.id, next: task.next + 1 };
    },
  };
}

describe('on Redis Sentinel', () => {
  it('creates, delivers and retries: a refused first attempt is made again under the same deliveryId', async () => {
    const receiver = await startReceiver((n) => ({ status: n === 0 ? 500 : 200 }));
    try {
      const { org, projectId } = await subscribedOrganization(receiver.url);
      const task = await call(services.api.url, org.liveKey, 'POST', '/v1/tasks', { title: 'On Sentinel', projectId });
      expect(task.status).toBe(201);

      const [first, second] = await receiver.waitForCount(2);
      expect(first!.json.data.id).toBe(task.body!.id);
      expect(second!.json.deliveryId).toBe(first!.json.deliveryId);
      const delivery = await waitFor(async () => {
        const row = await database.db.delivery.findUnique({ where: { id: first!.json.deliveryId } });
        return row?.status === 'succeeded' ? row : undefined;
      });
      expect(delivery.attemptCount).toBe(2);
    } finally {
      await receiver.close();
    }
  });

  it("counts a key's open event streams through the Sentinels' master (the 6th: 429) and closes them within 5 s of the key's revocation", async () => {
    const org = await createOrg(database.db);
    const api = (method: string, path: string, body?: object) => call(services.api.url, org.liveKey, method, path, body);
    await expectStreamsOfOneKey(services.api.url, database.db, org, {
      createProject: async () => (await api('POST', '/v1/projects', { name: 'Streamed' })).body!.id,
      revokeKey: async (keyId) => expect((await api('DELETE', `/v1/api-keys/${keyId}`)).status).toBe(204),
    });
  });

  it("survives the master SIGKILLed under load: no 500, every acknowledged task delivered exactly once, an ordered subscription's events of each task in commit order", async () => {
    const receiver = await startReceiver();
    const orderedReceiver = await startReceiver();
    try {
      const { org, projectId } = await subscribedOrganization(receiver.url);
      const ordered = changedTasks(await subscribedOrganization(orderedReceiver.url, { events: ['task.created', 'task.updated'], ordering: 'resource' }));
      const acknowledged = new Set<string>();
      const statuses = new Map<number, number>();
      let running = true;
      // A steady load: one creation at a time, every other one with an Idempotency-Key (which needs Redis), each followed by
      // a step of another organization's changes to tasks, delivered to a subscription with ordering "resource".
      const load = (async () => {
        for (let n = 0; running; n++) {
          const headers: Record<string, string> = n % 2 === 0 ? { 'idempotency-key': randomUUID() } : {};
          const res = await call(services.api.url, org.liveKey, 'POST', '/v1/tasks', { title: `Load ${n}`, projectId }, headers).catch(() => ({
            status: 0,
            body: null,
          }));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 201) acknowledged.add(res.body!.id);
          await ordered.step();
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();

      await receiver.waitForCount(20);
      const master = await topology.masterPort();
      const killedAt = Date.now();
      topology.kill(master);

      // Deliveries flow again once an event created after the kill reaches the receiver.
      const flowing = await waitFor(async () => receiver.received.find((r) => Date.parse(String(r.json.data.createdAt)) > killedAt), {
        timeoutMs: 45_000,
        intervalMs: 50,
      });
      const recoveryMs = flowing.at - killedAt;
      const promoted = await topology.masterPort();
      console.log(
        `Sentinel failover (down-after-milliseconds ${DOWN_AFTER_MS}): master :${master} SIGKILLed, :${promoted} promoted; deliveries flowed again ${(recoveryMs / 1000).toFixed(1)} s after the kill. Statuses meanwhile: ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
      expect(promoted).not.toBe(master);

      const afterRecovery = acknowledged.size;
      await waitFor(async () => (acknowledged.size >= afterRecovery + 20 ? true : undefined), { timeoutMs: 20_000 });
      running = false;
      await load;

      await waitFor(async () => (new Set(receiver.received.map(taskOf)).size >= acknowledged.size ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
      expect([...statuses.keys()].filter((status) => status !== 201 && status !== 503)).toEqual([]);
      expect(statuses.get(503)).toBeGreaterThan(0);
      expect(new Set(receiver.received.map(taskOf))).toEqual(acknowledged);
      const deliveryIds = receiver.received.map((r) => r.json.deliveryId);
      expect(new Set(deliveryIds).size).toBe(deliveryIds.length);
      // Each attempt is recorded after its receiver answered: the last ones may still be on their way.
      const deliveries = await waitFor(async () => {
        const all = await database.db.delivery.findMany({ where: { organizationId: org.organization.id }, select: { status: true, attemptCount: true } });
        return all.every((d) => d.status === 'succeeded') ? all : undefined;
      });
      expect(deliveries).toHaveLength(acknowledged.size);
      expect(deliveries.every((d) => d.attemptCount === 1)).toBe(true);

      // Per task, its acknowledged changes arrive in commit order (created first), also those made around the failover.
      const orderedTaskIds = [...ordered.versions.keys()];
      const versionsDue = (taskId: string) => ordered.versions.get(taskId)!;
      const arrived = (taskId: string, version: number) => orderedReceiver.received.some((r) => taskOf(r) === taskId && versionOf(r) === version);
      await waitFor(async () => (orderedTaskIds.every((id) => versionsDue(id).every((version) => arrived(id, version))) ? true : undefined), {
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      expect([...ordered.statuses.keys()].filter((status) => ![200, 201, 503].includes(status))).toEqual([]);
      expect([orderedReceiver.received.some((r) => r.at < killedAt), orderedReceiver.received.some((r) => r.at > flowing.at)]).toEqual([true, true]);
      expectCommitOrder(orderedReceiver.received, orderedTaskIds, versionsDue);
    } finally {
      await receiver.close();
      await orderedReceiver.close();
    }
  }, 120_000);
});

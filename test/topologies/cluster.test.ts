import { randomUUID } from 'node:crypto';
import { addMember, as, createHarness, createOrg, expectError, type Harness } from '@test-support/api-harness';
import { waitFor } from '@test-support/wait-for';
import { startReceiver } from '@test-support/receiver';
import { command, startClusterTopology, type ClusterTopology } from '@test-support/redis-topologies';
import { call, startServices } from '@test-support/shipped-services';
import { expectStreamsOfOneKey } from '@test-support/stream-checks';
import { withinSignInLimits } from '../../services/api/src/dashboard/sign-in-limits';

// Every Redis role on a three-master Redis Cluster: the shipped API and worker with the queues in
// QUEUE_SHARDS=3 shards, and two more API replicas (each its own connections and key cache) that
// count quotas, replay idempotent requests and hear revocations through the cluster.
const PORTS = { redis: 27200, api: 27220, workerHealth: 27221 };
const SHARDS = 3;

let topology: ClusterTopology;
let services: Awaited<ReturnType<typeof startServices>>;
let replicas: [Harness, Harness];
const prefix = `wt-test-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  topology = await startClusterTopology(PORTS.redis);
  const shared = { REDIS_CLUSTER_NODES: topology.nodes, REDIS_PREFIX: prefix, QUEUE_SHARDS: String(SHARDS) };
  services = await startServices({ ...shared, PORT: String(PORTS.api), WORKER_HEALTH_PORT: String(PORTS.workerHealth) });
  // Keys cached for a minute, far past the contract's 1 s, so that only a revocation message can make the other refuse.
  replicas = [createHarness(shared, { keyCacheLifetimeMs: 60_000 }), createHarness(shared, { keyCacheLifetimeMs: 60_000 })];
  await Promise.all(replicas.map((replica) => replica.deps.keyRevocations.listening));
}, 60_000);
afterAll(async () => {
  await Promise.all([services?.close(), ...(replicas ?? []).map((replica) => replica.close())]);
  await topology?.stop();
});

/** The cluster's masters that hold at least one key under the prefix. */
async function mastersHolding(pattern: string): Promise<number[]> {
  const holding: number[] = [];
  for (const port of topology.ports) {
    const [, keys] = (await command(port, 'SCAN', '0', 'MATCH', pattern, 'COUNT', '100000')) as [string, string[]];
    if (keys.length > 0) holding.push(port);
  }
  return holding;
}

describe('on a Redis Cluster', () => {
  it('delivers the events of many organizations, spread over every shard and more than one master', async () => {
    const receiver = await startReceiver();
    try {
      const orgs = [];
      for (let i = 0; i < 24; i++) orgs.push(await createOrg(replicas[0].db));
      const tasks = await Promise.all(
        orgs.map(async (org) => {
          const api = (path: string, body: object) => call(services.api.url, org.liveKey, 'POST', path, body);
          expect((await api('/v1/webhooks', { url: receiver.url, events: ['task.created'] })).status).toBe(201);
          const project = await api('/v1/projects', { name: 'Cluster' });
          const task = await api('/v1/tasks', { title: 'On the cluster', projectId: project.body!.id });
          expect(task.status).toBe(201);
          return task.body!.id as string;
        }),
      );

      const received = await receiver.waitForCount(tasks.length, 30_000);
      expect(new Set(received.map((r) => r.json.data.id))).toEqual(new Set(tasks));
      for (const r of received) expect(r.headers['webhook-signature']).toBeDefined();
      // Recorded once the attempt's record commits, a moment after the receiver answered.
      const settled = () => replicas[0].db.delivery.count({ where: { id: { in: received.map((r) => r.json.deliveryId) }, status: 'succeeded' } });
      await waitFor(async () => ((await settled()) === tasks.length ? true : undefined));

      const { events } = replicas[0].deps.jobs;
      expect(events.map((queue) => queue.name)).toEqual(['{events-0}', '{events-1}', '{events-2}']);
      const perShard = await Promise.all(events.map((queue) => queue.getCompletedCount()));
      expect(perShard.every((count) => count > 0)).toBe(true);
      const holding = await mastersHolding(`${prefix}:{events-*`);
      console.log(`Redis Cluster: dispatch jobs per events shard ${JSON.stringify(perShard)}; masters holding event queues: ${holding.join(', ')}`);
      expect(holding.length).toBeGreaterThan(1);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('counts a daily quota exactly across two API replicas', async () => {
    const quota = 30;
    const org = await createOrg(replicas[0].db, { plan: 'free', dailyQuota: quota });
    const responses = await Promise.all(Array.from({ length: quota + 10 }, (_, i) => as(replicas[i % 2]!.app, org.liveKey).get('/v1/projects')));
    const statuses = responses.map((res) => res.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(quota);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
  }, 60_000);

  it('replays an idempotent request on another replica', async () => {
    const org = await createOrg(replicas[0].db);
    const key = randomUUID();
    const post = (replica: Harness) => as(replica.app, org.liveKey).post('/v1/projects', { name: 'Once' }).set('Idempotency-Key', key);
    const first = await post(replicas[0]).expect(201);
    const again = await post(replicas[1]).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await replicas[0].db.project.count({ where: { organizationId: org.organization.id } })).toBe(1);
  });

  it('limits sign-in mails per address and per client address, each counter in its own slot', async () => {
    const email = `${randomUUID()}@example.com`;
    const client = `203.0.113.${Math.floor(Math.random() * 250)}-${randomUUID()}`;
    const answers: boolean[] = [];
    for (let i = 0; i < 6; i++) answers.push(await withinSignInLimits(replicas[i % 2]!.deps, email, client));
    expect(answers).toEqual([true, true, true, true, true, false]);
    const others: boolean[] = [];
    for (let i = 0; i < 15; i++) others.push(await withinSignInLimits(replicas[i % 2]!.deps, `${randomUUID()}@example.com`, client));
    expect(others.filter((within) => !within)).toHaveLength(1);
  });

  it('makes another replica refuse a revoked key within 1 s', async () => {
    const org = await createOrg(replicas[0].db);
    const member = await addMember(replicas[0].db, org);
    for (const replica of replicas) expect((await as(replica.app, member.key).get('/v1/tasks')).status).toBe(200);

    await as(replicas[0].app, org.liveKey).delete(`/v1/members/${member.userId}`).expect(204);
    expectError(await as(replicas[0].app, member.key).get('/v1/tasks'), 401, 'unauthenticated');
    await waitFor(async () => ((await as(replicas[1].app, member.key).get('/v1/tasks')).status === 401 ? true : undefined), { timeoutMs: 1_000 });
  });

  it("counts a key's open event streams in the cluster (the 6th: 429) and closes them within 5 s of the key's revocation on another replica", async () => {
    const org = await createOrg(replicas[0].db);
    const api = as(replicas[0].app, org.liveKey);
    await expectStreamsOfOneKey(services.api.url, replicas[0].db, org, {
      createProject: async () => (await api.post('/v1/projects', { name: 'Streamed' }).expect(201)).body.id,
      revokeKey: async (keyId) => void (await api.delete(`/v1/api-keys/${keyId}`).expect(204)),
    });
  });
});

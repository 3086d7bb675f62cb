import { request } from 'undici';
import type { JobScheduler } from '../packages/queue/src';
import type { BenchOrganization, NoisyNeighbourBench } from './noisy-neighbour';
import type { startReceiver } from './receiver';
import type { Measured } from './table';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * What the benches comparing two settings of one organization's subscriptions share: a change made
 * to every subscription, and a saturated measurement (tables vacuumed first, events published at
 * once, deliveries/s from first publish to last arrival, the worker's CPU over that window).
 */
export function subscriptionRounds(
  bench: Omit<NoisyNeighbourBench, 'seconds'>,
  { org, receiver, jobs, webhooks }: { org: BenchOrganization; receiver: Receiver; jobs: JobScheduler; webhooks: { id: string }[] },
) {
  return {
    async patchAll(body: object): Promise<void> {
      for (const { id } of webhooks) {
        const res = await request(`${bench.base}/v1/webhooks/${id}`, { method: 'PATCH', headers: org.headers, body: JSON.stringify(body) });
        if (res.statusCode !== 200) throw new Error(`PATCH /v1/webhooks/${id}: ${res.statusCode} ${await res.body.text()}`);
        await res.body.dump();
      }
    },
    async saturated(label: string, makeEvents: () => Promise<string[]>): Promise<Measured> {
      await bench.pg.query('VACUUM ANALYZE "OutboxEvent", "Delivery", "DeliveryAttempt", "Webhook"');
      const eventIds = await makeEvents();
      const count = eventIds.length * webhooks.length;
      await receiver.take();
      const window = await bench.cpu([bench.workerPid]);
      const started = Date.now();
      await jobs.publishEvents(eventIds.map((id) => ({ id, organizationId: org.id })));
      await receiver.waitFor(count);
      const seconds = (Math.max(...(await receiver.take()).map((a) => a.at)) - started) / 1000;
      return { label, count, seconds, cpu: await window.stop() };
    },
  };
}

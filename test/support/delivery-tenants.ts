import { as, createOrg, type Harness, type TestOrg } from './api-harness';
import type { Received } from './receiver';

/** A subscription to `project.created` at `url`, with the caps given set as the subscriber would. */
export async function subscribe(h: Harness, org: TestOrg, url: string, caps: { maxConcurrency?: number; rateLimit?: number } = {}): Promise<string> {
  const res = await as(h.app, org.liveKey).post('/v1/webhooks', { url, events: ['project.created'], ...caps });
  if (res.status !== 201) throw new Error(`subscription refused: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** A new organization (on the pro plan: up to 50 subscriptions) with a subscription at each of `urls`. */
export async function tenant(h: Harness, urls: string[], caps: { maxConcurrency?: number; rateLimit?: number } = {}) {
  const org = await createOrg(h.db, { plan: 'pro' });
  const webhookIds = [];
  for (const url of urls) webhookIds.push(await subscribe(h, org, url, caps));
  return { org, webhookIds };
}

/** Creates `count` projects, `parallel` requests at a time; resolves with when each was asked for, by project id. */
export async function createProjects(h: Harness, org: TestOrg, count: number, parallel = 1): Promise<Map<string, number>> {
  const askedAt = new Map<string, number>();
  for (let i = 0; i < count; i += parallel) {
    await Promise.all(
      Array.from({ length: Math.min(parallel, count - i) }, async (_, j) => {
        const at = Date.now();
        const res = await as(h.app, org.liveKey).post('/v1/projects', { name: `P${i + j}` });
        if (res.status !== 201) throw new Error(`project refused: ${res.status}`);
        askedAt.set(res.body.id as string, at);
      }),
    );
  }
  return askedAt;
}

/** Milliseconds from each project's creation to its first delivery's arrival, sorted. */
export function createToReceiver(askedAt: Map<string, number>, received: Received[]): number[] {
  const first = new Map<string, number>();
  for (const r of received) {
    const id = r.json.data.id as string;
    if (askedAt.has(id) && !first.has(id)) first.set(id, r.at);
  }
  return [...first].map(([id, at]) => at - askedAt.get(id)!).sort((a, b) => a - b);
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

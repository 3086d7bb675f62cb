import type { TenantTx } from '@worktrack/db';

export interface WebhookStats {
  window: '24h';
  attempts: number;
  succeeded: number;
  failed: number;
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  hourly: { start: string; succeeded: number; failed: number }[];
}

const WINDOW_MS = 24 * 3600 * 1000;

/** A subscription's attempts of the last 24 hours, in one statement. */
export async function webhookStats(data: TenantTx, webhookId: string, now: Date): Promise<WebhookStats> {
  const stats = await data.webhooks.stats(webhookId, new Date(now.getTime() - WINDOW_MS), now);
  return {
    window: '24h',
    attempts: stats.attempts,
    succeeded: stats.succeeded,
    failed: stats.attempts - stats.succeeded,
    successRate: stats.attempts === 0 ? null : Math.round((stats.succeeded / stats.attempts) * 10_000) / 10_000,
    p50Ms: stats.p50Ms,
    p95Ms: stats.p95Ms,
    lastSuccessAt: stats.lastSuccessAt?.toISOString() ?? null,
    lastFailureAt: stats.lastFailureAt?.toISOString() ?? null,
    hourly: stats.hourly,
  };
}

import type { Router } from 'express';
import { dailyQuota, quotaStore } from '../../http/rate-limit';
import { getWebhookStats } from '../../modules/webhooks/get-webhook-stats';
import { listWebhooks } from '../../modules/webhooks/list-webhooks';
import { callerOf, requireDashboard } from '../context';
import { callOperation } from '../../pipeline';
import type { DashboardApp } from '../dashboard-app';
import { addHours, DeliveryChart } from '../views/delivery-chart';
import { HealthTable, type Health } from '../views/health';
import { renderPage } from '../views/render';

const number = (n: number) => n.toLocaleString('en');

function Quota({ used, limit }: { used: number | null; limit: number }) {
  return (
    <section aria-labelledby="quota-title" class="card">
      <h2 id="quota-title">API requests today</h2>
      {used === null ? (
        <p>Unknown right now: the quota counters (Redis) are unreachable, and requests pass uncounted meanwhile.</p>
      ) : (
        <>
          <p class="big">
            {number(used)} <span class="muted">of {number(limit)}</span>
          </p>
          <meter id="quota-meter" min={0} max={limit} value={used} low={limit * 0.8} high={limit * 0.95} optimum={0} aria-label="Share of today's quota used">
            {Math.round((used / limit) * 100)}%
          </meter>
        </>
      )}
      <p class="hint">Live and test keys together, per UTC day; the count starts again at 00:00 UTC. The dashboard's own use is not counted.</p>
    </section>
  );
}

function Deliveries({ health }: { health: Health[] }) {
  if (health.length === 0) {
    return (
      <section class="card" aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Webhook deliveries</h2>
        <p>
          No subscriptions in this mode yet. <a href="/dashboard/webhooks">Create one</a>.
        </p>
      </section>
    );
  }
  return (
    <section class="card" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Webhook deliveries, last 24 hours</h2>
      <DeliveryChart hours={addHours(health.map((h) => h.stats.hourly))} />
      <HealthTable health={health} />
    </section>
  );
}

/** Today's requests against the quota; for those who may read webhooks, the last day's deliveries and each subscription's health. */
export function overviewPage(router: Router, { deps, assets }: DashboardApp): void {
  router.get('/', async (req, res) => {
    const { tenant } = requireDashboard(req);
    const caller = callerOf(req, res, deps);
    const usage = await quotaStore(deps.redis, deps.config.redisPrefix)
      .get(tenant.organizationId)
      .then((count) => count.totalHits)
      .catch(() => null);
    let health: Health[] | null = null;
    if (tenant.permissions.has('webhooks:read')) {
      const webhooks = await callOperation(listWebhooks, caller, { query: { limit: 100 } });
      health = await Promise.all(
        webhooks.data.map(async (webhook) => ({ webhook, stats: await callOperation(getWebhookStats, caller, { params: { webhookId: webhook.id } }) })),
      );
    }
    renderPage(req, res, assets, {
      title: 'Overview',
      section: 'overview',
      body: (
        <div class="overview">
          <Quota used={usage} limit={dailyQuota(tenant)} />
          {health && <Deliveries health={health} />}
        </div>
      ),
    });
  });
}

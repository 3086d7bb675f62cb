import type { WebhookRecord } from '../../modules/webhooks/webhook-record';
import type { WebhookStats } from '../../modules/webhooks/webhook-stats';
import { Badge, Time, Scroll } from './components';

export interface Health {
  webhook: WebhookRecord;
  stats: WebhookStats;
}

export const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(rate === 1 ? 0 : 1)}%`);
export const ms = (value: number | null) => (value === null ? '—' : `${value} ms`);

/** Each subscription's last 24 hours in one row. */
export function HealthTable({ health }: { health: Health[] }) {
  return (
    <Scroll label="Subscription health">
      <table>
        <caption>Subscriptions, last 24 hours</caption>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Success</th>
            <th scope="col">p95</th>
            <th scope="col">Last success</th>
            <th scope="col">Last failure</th>
          </tr>
        </thead>
        <tbody>
          {health.map(({ webhook, stats }) => (
            <tr>
              <th scope="row">
                <a href={`/dashboard/webhooks/${webhook.id}`}>{webhook.url}</a>
              </th>
              <td>
                <Badge value={webhook.status} />
              </td>
              <td>{stats.attempts}</td>
              <td>{percent(stats.successRate)}</td>
              <td>{ms(stats.p95Ms)}</td>
              <td>
                <Time value={stats.lastSuccessAt} />
              </td>
              <td>
                <Time value={stats.lastFailureAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

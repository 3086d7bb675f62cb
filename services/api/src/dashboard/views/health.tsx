import type { WebhookRecord } from '../../modules/webhooks/webhook-record';
import type { WebhookStats } from '../../modules/webhooks/webhook-stats';
import { ColumnHeads, Badge, Time, Scroll } from './components';

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
        <ColumnHeads names={['Endpoint', 'Status', 'Attempts', 'Success', 'p95', 'Last success', 'Last failure']} />
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

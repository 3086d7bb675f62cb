export interface HourCount {
  start: string;
  succeeded: number;
  failed: number;
}
import { ColumnHeads, Scroll } from './components';

const WIDTH = 720;
const HEIGHT = 180;
const AXIS = 20;
const SLOT = WIDTH / 24;
const BAR = SLOT * 0.7;

const hourOf = (start: string) => `${start.slice(11, 16)} UTC`;

/**
 * Delivery attempts per hour over the last 24 hours as stacked bars (succeeded below, failed above),
 * drawn on the server as SVG: no chart library, no script. Screen readers get a summary and the
 * same numbers as a table.
 */
export function DeliveryChart({ hours }: { hours: HourCount[] }) {
  const succeeded = hours.reduce((sum, h) => sum + h.succeeded, 0);
  const failed = hours.reduce((sum, h) => sum + h.failed, 0);
  const max = Math.max(1, ...hours.map((h) => h.succeeded + h.failed));
  const scale = (n: number) => (n / max) * (HEIGHT - AXIS - 10);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="chart-title chart-desc" preserveAspectRatio="none">
        <title id="chart-title">Delivery attempts per hour, last 24 hours</title>
        <desc id="chart-desc">
          {succeeded} succeeded and {failed} failed; the busiest hour had {max === 1 && succeeded + failed === 0 ? 0 : max}.
        </desc>
        <line class="axis" x1={0} x2={WIDTH} y1={HEIGHT - AXIS} y2={HEIGHT - AXIS} />
        {hours.map((hour, i) => {
          const x = i * SLOT + (SLOT - BAR) / 2;
          const ok = scale(hour.succeeded);
          const bad = scale(hour.failed);
          return (
            <g>
              <title>{`${hourOf(hour.start)}: ${hour.succeeded} succeeded, ${hour.failed} failed`}</title>
              <rect class="bar-ok" x={x} width={BAR} y={HEIGHT - AXIS - ok} height={ok} />
              <rect class="bar-failed" x={x} width={BAR} y={HEIGHT - AXIS - ok - bad} height={bad} />
              {i % 6 === 0 && (
                <text class="tick" x={x} y={HEIGHT - 4}>
                  {hour.start.slice(11, 16)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="key key-ok">succeeded</span> <span class="key key-failed">failed</span> · hours in UTC
      </figcaption>
      <details>
        <summary>Show as a table</summary>
        <Scroll label="Deliveries per hour">
          <table>
            <ColumnHeads names={['Hour', 'Succeeded', 'Failed']} />
            <tbody>
              {hours.map((hour) => (
                <tr>
                  <th scope="row">{hourOf(hour.start)}</th>
                  <td>{hour.succeeded}</td>
                  <td>{hour.failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      </details>
    </figure>
  );
}

/** The hours of several subscriptions' series added up (every series covers the same 24 hours). */
export function addHours(series: HourCount[][]): HourCount[] {
  const [first, ...rest] = series;
  if (!first) return [];
  return first.map((hour, i) => ({
    start: hour.start,
    succeeded: hour.succeeded + rest.reduce((sum, s) => sum + (s[i]?.succeeded ?? 0), 0),
    failed: hour.failed + rest.reduce((sum, s) => sum + (s[i]?.failed ?? 0), 0),
  }));
}

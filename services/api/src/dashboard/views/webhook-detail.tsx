import { DeliveryStatus } from '@worktrack/db';
import { EVENT_TYPES } from '@worktrack/events';
import type { Envelope } from '../../http/pagination';
import type { DeliveryRecord, WebhookRecord } from '../../modules/webhooks/webhook-record';
import type { WebhookStats } from '../../modules/webhooks/webhook-stats';
import type { Form } from '../form';
import type { Problem } from '../problem';
import type { ComponentChildren } from 'preact';
import { ColumnHeads, ActionButton, Badge, optionsOf, Pager, PostForm, ProblemSummary, RowProblem, Scroll, SelectField, TextField, Time } from './components';
import { DeliveryChart } from './delivery-chart';
import { ms, percent } from './health';
import { useCan } from './page-context';
import { WebhookFields } from './webhook-fields';

/** Which of the page's forms a problem belongs to. */
export type WebhookForm = 'edit' | 'test' | 'recover' | 'rotate' | 'log';

export interface WebhookPageProblem {
  form: WebhookForm;
  problem: Problem;
}

const pathOf = (webhook: WebhookRecord) => `/dashboard/webhooks/${webhook.id}`;
const problemFor = (form: WebhookForm, problem: WebhookPageProblem | undefined) => (problem?.form === form ? problem.problem : undefined);

/** What a person comes for first: is it working? The endpoint, its status and its last day in numbers. */
export function WebhookStatus({ webhook, stats }: { webhook: WebhookRecord; stats: WebhookStats }) {
  return (
    <section aria-labelledby="status-title" class="card webhook-status">
      <h2 id="status-title" class="visually-hidden">
        Status
      </h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Badge value={webhook.status} />
          {webhook.disabledReason && (
            <>
              {' '}
              ({webhook.disabledReason === 'delivery_failures' ? 'its last retry failed' : webhook.disabledReason}, <Time value={webhook.disabledAt} />)
            </>
          )}
        </dd>
        {webhook.pausedUntil && (
          <>
            <dt>Paused</dt>
            <dd>
              Until <Time value={webhook.pausedUntil} />: the endpoint answered 429 or 503 with Retry-After, so deliveries wait until then. Waiting does not
              count as failing.
            </dd>
          </>
        )}
        <dt>Endpoint</dt>
        <dd>
          <code>{webhook.url}</code>
        </dd>
      </dl>
      <h3>Last 24 hours</h3>
      <dl class="stats">
        <div>
          <dt>Attempts</dt>
          <dd>{stats.attempts}</dd>
        </div>
        <div>
          <dt>Success rate</dt>
          <dd>{percent(stats.successRate)}</dd>
        </div>
        <div>
          <dt>Median time</dt>
          <dd>{ms(stats.p50Ms)}</dd>
        </div>
        <div>
          <dt>p95 time</dt>
          <dd>{ms(stats.p95Ms)}</dd>
        </div>
        <div>
          <dt>Last success</dt>
          <dd>
            <Time value={stats.lastSuccessAt} />
          </dd>
        </div>
        <div>
          <dt>Last failure</dt>
          <dd>
            <Time value={stats.lastFailureAt} />
          </dd>
        </div>
      </dl>
    </section>
  );
}

/** Attempts per hour, after the log; none drawn for a day without attempts. */
export function HourlyPanel({ stats }: { stats: WebhookStats }) {
  if (stats.attempts === 0) return null;
  return (
    <section aria-labelledby="hourly-title">
      <h2 id="hourly-title">Attempts per hour</h2>
      <DeliveryChart hours={stats.hourly} />
    </section>
  );
}

/** How it is set up: what it receives, its limits and headers; the form that changes them is folded away. */
export function WebhookSettings({ webhook, values, problem }: { webhook: WebhookRecord; values: Form; problem?: WebhookPageProblem | undefined }) {
  const can = useCan();
  return (
    <section aria-labelledby="settings-title" class="settings">
      <h2 id="settings-title">Settings</h2>
      <dl class="facts">
        <dt>Events</dt>
        <dd>{webhook.events.join(', ')}</dd>
        {webhook.projectIds && (
          <>
            <dt>Projects</dt>
            <dd>{webhook.projectIds.join(', ')}</dd>
          </>
        )}
        {webhook.filter && (
          <>
            <dt>Filter</dt>
            <dd>
              <code>{JSON.stringify(webhook.filter)}</code>
            </dd>
          </>
        )}
        {webhook.headers && (
          <>
            <dt>Custom headers</dt>
            <dd>
              {Object.entries(webhook.headers).map(([name, masked]) => (
                <div key={name}>
                  <code>
                    {name}: {masked}
                  </code>
                </div>
              ))}
            </dd>
          </>
        )}
        <dt>Limits</dt>
        <dd>
          {webhook.maxConcurrency} {webhook.maxConcurrency === 1 ? 'request' : 'requests'} at once,{' '}
          {webhook.rateLimit === null ? 'no rate limit' : `at most ${webhook.rateLimit} per second`}
        </dd>
        <dt>Order</dt>
        <dd>{webhook.ordering === 'resource' ? 'In order, per resource' : 'Any order'}</dd>
        {webhook.description && (
          <>
            <dt>Description</dt>
            <dd>{webhook.description}</dd>
          </>
        )}
      </dl>
      {can('webhooks:write') && (
        // Open when its last saving was refused, so that the problem shows.
        <details class="edit" open={problem?.form === 'edit'}>
          <summary>Edit the settings</summary>
          <PostForm action={pathOf(webhook)} label="Edit the subscription">
            <ProblemSummary problem={problemFor('edit', problem)} />
            <WebhookFields values={values} problem={problemFor('edit', problem)} headerNames={Object.keys(webhook.headers ?? {})} />
            <button type="submit">Save</button>
          </PostForm>
        </details>
      )}
    </section>
  );
}

/** One action: a title, a line on what it does, at most one field, and its button at the bottom; every card the same size. */
function ActionCard({ action, title, children, confirm }: { action: string; title: string; children: ComponentChildren; confirm?: string }) {
  return (
    <PostForm action={action} label={title} confirm={confirm} class="action-card">
      <h3>{title}</h3>
      {children}
    </PostForm>
  );
}

/** Send a test, recover, disable, reveal or rotate the secret, delete: what webhooks:write allows, as one group of cards. */
export function WebhookActions({
  webhook,
  problem,
  values,
  recoverSince,
}: {
  webhook: WebhookRecord;
  problem?: WebhookPageProblem | undefined;
  values: Form;
  recoverSince: string;
}) {
  const path = pathOf(webhook);
  return (
    <section aria-labelledby="actions-title" class="actions">
      <h2 id="actions-title">Actions</h2>
      <div class="action-cards">
        {webhook.status === 'active' && (
          <>
            <ActionCard action={`${path}/test`} title="Send a test delivery">
              <ProblemSummary problem={problemFor('test', problem)} />
              <SelectField
                name="event"
                label="Test event"
                options={[{ value: '', label: 'First subscribed type' }, ...optionsOf(EVENT_TYPES)]}
                value={values.event as string | undefined}
                problem={problemFor('test', problem)}
              />
              <button type="submit">Send test</button>
            </ActionCard>
            <ActionCard action={`${path}/recover`} title="Recover deliveries">
              <ProblemSummary problem={problemFor('recover', problem)} />
              <TextField
                name="since"
                type="datetime-local"
                label="Recover since (UTC)"
                hint="Resends the failed and sends the missed; at most 14 days back."
                value={(values.since as string | undefined) ?? recoverSince}
                required
                problem={problemFor('recover', problem)}
              />
              <button type="submit" class="secondary">
                Recover
              </button>
            </ActionCard>
            <ActionCard action={`${path}/status`} title="Disable" confirm="Disable this subscription? It gets no deliveries until re-enabled.">
              <p class="hint">No deliveries go out until it is re-enabled; they wait, and can be recovered.</p>
              <input type="hidden" name="status" value="disabled" />
              <button type="submit" class="secondary">
                Disable
              </button>
            </ActionCard>
          </>
        )}
        <ActionCard action={`${path}/secret/reveal`} title="Reveal the secret">
          <p class="hint">The secret that signs its deliveries is kept encrypted; reveal it to set it up at the receiver.</p>
          <button type="submit" class="secondary">
            Reveal secret
          </button>
        </ActionCard>
        <ActionCard action={`${path}/secret`} title="Rotate the secret">
          <ProblemSummary problem={problemFor('rotate', problem)} />
          <TextField
            name="secret"
            label="New secret (optional)"
            hint="Empty: one is generated. The old one keeps signing webhook-signature for 24 hours."
            problem={problemFor('rotate', problem)}
          />
          <button type="submit" class="secondary">
            Rotate secret
          </button>
        </ActionCard>
        <ActionCard action={`${path}/delete`} title="Delete" confirm="Delete this subscription and its delivery log?">
          <p class="hint">The subscription and its delivery log go for good.</p>
          <button type="submit" class="danger">
            Delete subscription
          </button>
        </ActionCard>
      </div>
    </section>
  );
}

/** Re-enabling, at the top of a disabled subscription's page, with the offer to recover since the disable. */
export function ReenableForm({ webhook }: { webhook: WebhookRecord }) {
  return (
    <PostForm action={`${pathOf(webhook)}/status`} label="Re-enable" class="card reenable">
      <h2>Re-enable</h2>
      <p>Disabled subscriptions get no new deliveries. Once the endpoint works again, re-enable it: the waiting deliveries go out at once.</p>
      <input type="hidden" name="status" value="active" />
      {webhook.disabledAt && (
        <label class="checkbox">
          <input type="checkbox" name="recover" value="since-disabled" checked /> Also recover what it missed: resend the deliveries that failed and send the
          events since it was disabled (<Time value={webhook.disabledAt} />)
        </label>
      )}
      <button type="submit">Re-enable</button>
    </PostForm>
  );
}

/** An HTTP status as people read it: green for 2xx, red otherwise; none when no answer came. */
function HttpStatus({ status }: { status: number | null }) {
  if (status === null) return <span class="muted">none</span>;
  return <span class={status >= 200 && status < 300 ? 'http http-ok' : 'http http-failed'}>{status}</span>;
}

const FILTER_FIELDS: Record<string, string> = { deliveryId: 'q', eventId: 'q', resourceId: 'q', since: 'from', until: 'to' };

/** The log's filters: status, event type, a range of days, and one search box for a delivery, event or resource id. */
function LogFilters({ path, filters, problem: refused }: { path: string; filters: Record<string, string>; problem?: Problem | undefined }) {
  // The API names its own parameters; the page's fields are these.
  const problem = refused && { ...refused, param: FILTER_FIELDS[refused.param ?? ''] ?? null };
  return (
    <form method="get" action={path} class="filters" aria-label="Filter the delivery log">
      <ProblemSummary problem={problem} />
      <TextField
        name="q"
        type="search"
        label="Search by id"
        hint="A delivery (dlv_…), an event (evt_…) or the task, project, member, comment or file it was about."
        value={filters.q}
        problem={problem}
      />
      <SelectField
        id="filter-status"
        name="status"
        label="Status"
        options={[{ value: '', label: 'Any' }, ...optionsOf(Object.values(DeliveryStatus))]}
        value={filters.status}
      />
      <SelectField id="filter-event" name="event" label="Event" options={[{ value: '', label: 'Any' }, ...optionsOf(EVENT_TYPES)]} value={filters.event} />
      <TextField name="from" type="date" label="From (UTC)" value={filters.from} problem={problem} />
      <TextField name="to" type="date" label="To (UTC, included)" value={filters.to} problem={problem} />
      <div class="filter-buttons">
        <button type="submit" class="secondary">
          Filter
        </button>
        {Object.keys(filters).some((name) => name !== 'offset') && <a href={path}>Clear</a>}
      </div>
    </form>
  );
}

export function DeliveryLog({
  webhook,
  deliveries,
  filters,
  problem,
}: {
  webhook: WebhookRecord;
  deliveries: Envelope<DeliveryRecord>;
  filters: Record<string, string>;
  problem?: Problem | undefined;
}) {
  const path = pathOf(webhook);
  const can = useCan();
  return (
    <section aria-labelledby="log-title" class="delivery-log">
      <h2 id="log-title">Delivery log</h2>
      <LogFilters path={path} filters={filters} problem={problem} />
      {deliveries.data.length === 0 ? (
        <p>No deliveries{Object.keys(filters).length > 0 ? ' match these filters' : ' yet'}.</p>
      ) : (
        <Scroll label="Deliveries">
          <table class="log">
            <caption class="visually-hidden">Deliveries, newest first</caption>
            <ColumnHeads names={['Delivery', 'Status', 'HTTP', 'Time', 'Attempts', 'Created', 'Next attempt', can('webhooks:write') && 'Redeliver']} />
            <tbody>
              {deliveries.data.map((delivery) => (
                <tr>
                  <th scope="row">
                    <a href={`${path}/deliveries/${delivery.id}`}>{delivery.event}</a>
                    {delivery.test && <span class="tag">test</span>}
                    <div class="muted id">{delivery.id}</div>
                    <RowProblem row={delivery.id} />
                  </th>
                  <td>
                    <Badge value={delivery.status} />
                  </td>
                  <td>
                    <HttpStatus status={delivery.lastResponseStatus} />
                  </td>
                  <td class="number">{delivery.lastResponseTimeMs === null ? '—' : `${delivery.lastResponseTimeMs} ms`}</td>
                  <td class="number">{delivery.attemptCount}</td>
                  <td>
                    <Time value={delivery.createdAt} />
                  </td>
                  <td>
                    <Time value={delivery.nextAttemptAt} />
                  </td>
                  {can('webhooks:write') && (
                    <td>
                      <ActionButton
                        action={`${path}/deliveries/${delivery.id}/redeliver`}
                        label="Redeliver"
                        name={`Redeliver ${delivery.id}`}
                        hidden={{ from: 'log' }}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <Pager path={path} query={filters} pagination={deliveries.pagination} />
    </section>
  );
}

import { DeliveryStatus } from '@worktrack/db';
import { EVENT_TYPES } from '@worktrack/events';
import type { Envelope } from '../../http/pagination';
import type { DeliveryRecord, WebhookRecord } from '../../modules/webhooks/webhook-record';
import type { WebhookStats } from '../../modules/webhooks/webhook-stats';
import type { Form } from '../form';
import type { Problem } from '../problem';
import { ActionButton, Badge, optionsOf, Pager, PostForm, ProblemSummary, SelectField, TextField, Time } from './components';
import { DeliveryChart } from './delivery-chart';
import { ms, percent } from './health';
import { useCan } from './page-context';
import { WebhookFields } from './webhook-fields';

/** Which of the page's forms a problem belongs to. */
export type WebhookForm = 'edit' | 'test' | 'recover' | 'rotate';

export interface WebhookPageProblem {
  form: WebhookForm;
  problem: Problem;
}

const pathOf = (webhook: WebhookRecord) => `/dashboard/webhooks/${webhook.id}`;
const problemFor = (form: WebhookForm, problem: WebhookPageProblem | undefined) => (problem?.form === form ? problem.problem : undefined);

export function WebhookSummary({ webhook }: { webhook: WebhookRecord }) {
  return (
    <dl class="facts">
      <dt>Endpoint</dt>
      <dd>
        <code>{webhook.url}</code>
      </dd>
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
            Until <Time value={webhook.pausedUntil} />: the endpoint answered 429 or 503 with Retry-After, so deliveries wait until then. Waiting does not count
            as failing.
          </dd>
        </>
      )}
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
      {webhook.description && (
        <>
          <dt>Description</dt>
          <dd>{webhook.description}</dd>
        </>
      )}
    </dl>
  );
}

export function StatsPanel({ stats }: { stats: WebhookStats }) {
  return (
    <section aria-labelledby="stats-title">
      <h2 id="stats-title">Health, last 24 hours</h2>
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
      <DeliveryChart hours={stats.hourly} />
    </section>
  );
}

/** Send a test, re-enable or disable, recover, reveal or rotate the secret, delete: what webhooks:write allows. */
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
      {webhook.status === 'disabled' ? (
        <PostForm action={`${path}/status`} label="Re-enable">
          <p>Disabled subscriptions get no new deliveries. Re-enabling sends the waiting ones at once; recover afterwards what it missed meanwhile.</p>
          <input type="hidden" name="status" value="active" />
          <button type="submit">Re-enable</button>
        </PostForm>
      ) : (
        <>
          <PostForm action={`${path}/test`} label="Send a test delivery">
            <ProblemSummary problem={problemFor('test', problem)} />
            <SelectField
              name="event"
              label="Test event"
              options={[{ value: '', label: 'First subscribed type' }, ...optionsOf(EVENT_TYPES)]}
              value={values.event as string | undefined}
              problem={problemFor('test', problem)}
            />
            <button type="submit">Send test</button>
          </PostForm>
          <PostForm action={`${path}/recover`} label="Recover deliveries">
            <ProblemSummary problem={problemFor('recover', problem)} />
            <TextField
              name="since"
              type="datetime-local"
              label="Recover since (UTC)"
              hint="Resends failed deliveries and makes the missing ones (events while disabled) since then; at most 14 days back."
              value={(values.since as string | undefined) ?? recoverSince}
              required
              problem={problemFor('recover', problem)}
            />
            <button type="submit">Recover</button>
          </PostForm>
          <ActionButton
            action={`${path}/status`}
            label="Disable"
            hidden={{ status: 'disabled' }}
            confirm="Disable this subscription? It gets no deliveries until re-enabled."
          />
        </>
      )}
      <PostForm action={`${path}/secret/reveal`} label="Reveal the secret">
        <p>The secret that signs its deliveries is kept encrypted; reveal it to set it up at the receiver.</p>
        <button type="submit" class="secondary">
          Reveal secret
        </button>
      </PostForm>
      <PostForm action={`${path}/secret`} label="Rotate the secret">
        <ProblemSummary problem={problemFor('rotate', problem)} />
        <TextField
          name="secret"
          label="New secret (optional)"
          hint="Leave empty to generate one. The old secret keeps signing webhook-signature for 24 hours."
          problem={problemFor('rotate', problem)}
        />
        <button type="submit" class="secondary">
          Rotate secret
        </button>
      </PostForm>
      <ActionButton action={`${path}/delete`} label="Delete subscription" confirm="Delete this subscription and its delivery log?" danger />
    </section>
  );
}

export function EditWebhookForm({ webhook, values, problem }: { webhook: WebhookRecord; values: Form; problem?: WebhookPageProblem | undefined }) {
  return (
    <PostForm action={pathOf(webhook)} label="Edit the subscription">
      <h2>Edit</h2>
      <ProblemSummary problem={problemFor('edit', problem)} />
      <WebhookFields values={values} problem={problemFor('edit', problem)} headerNames={Object.keys(webhook.headers ?? {})} />
      <button type="submit">Save</button>
    </PostForm>
  );
}

export function DeliveryLog({
  webhook,
  deliveries,
  filters,
}: {
  webhook: WebhookRecord;
  deliveries: Envelope<DeliveryRecord>;
  filters: Record<string, string>;
}) {
  const path = pathOf(webhook);
  const can = useCan();
  return (
    <section aria-labelledby="log-title">
      <h2 id="log-title">Delivery log</h2>
      <form method="get" action={path} class="filters" aria-label="Filter the delivery log">
        <SelectField
          id="filter-status"
          name="status"
          label="Status"
          options={[{ value: '', label: 'Any' }, ...optionsOf(Object.values(DeliveryStatus))]}
          value={filters.status}
        />
        <SelectField id="filter-event" name="event" label="Event" options={[{ value: '', label: 'Any' }, ...optionsOf(EVENT_TYPES)]} value={filters.event} />
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {deliveries.data.length === 0 ? (
        <p>No deliveries{Object.keys(filters).length > 0 ? ' match these filters' : ' yet'}.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Delivery</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last attempt</th>
              <th scope="col">Next attempt</th>
              {can('webhooks:write') && <th scope="col">Redeliver</th>}
            </tr>
          </thead>
          <tbody>
            {deliveries.data.map((delivery) => (
              <tr>
                <th scope="row">
                  <a href={`${path}/deliveries/${delivery.id}`}>{delivery.id}</a>
                  {delivery.test && <span class="tag">test</span>}
                </th>
                <td>{delivery.event}</td>
                <td>
                  <Badge value={delivery.status} />
                </td>
                <td>{delivery.attemptCount}</td>
                <td>
                  <Time value={delivery.lastAttemptAt} />
                </td>
                <td>
                  <Time value={delivery.nextAttemptAt} />
                </td>
                {can('webhooks:write') && (
                  <td>
                    <ActionButton action={`${path}/deliveries/${delivery.id}/redeliver`} label="Redeliver" name={`Redeliver ${delivery.id}`} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager path={path} query={filters} pagination={deliveries.pagination} />
    </section>
  );
}

import type { Request, Router } from 'express';
import { getDelivery } from '../../modules/webhooks/get-delivery';
import { redeliver } from '../../modules/webhooks/redeliver';
import type { DeliveryAttemptRecord, DeliveryDetail } from '../../modules/webhooks/webhook-record';
import { callerOf } from '../context';
import { formOf, text } from '../form';
import { redirectDone } from '../notices';
import { rowAction } from '../row-action';
import { callOperation } from '../../pipeline';
import type { DashboardApp } from '../dashboard-app';
import { ActionButton, Badge, RowProblem, Time, Pre } from '../views/components';
import { useCan } from '../views/page-context';
import { renderPage } from '../views/render';

/** By name, whatever the case: the stored order (jsonb's) is not the order sent. */
const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers)
    .sort(([a], [b]) => a.localeCompare(b, 'en', { sensitivity: 'base' }))
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');

function Attempt({ attempt }: { attempt: DeliveryAttemptRecord }) {
  return (
    <article class="attempt" aria-labelledby={`attempt-${attempt.attemptNumber}`}>
      <h3 id={`attempt-${attempt.attemptNumber}`}>
        Attempt {attempt.attemptNumber}: {attempt.responseStatus === null ? 'no response' : `HTTP ${attempt.responseStatus}`}
        {attempt.error ? <Badge value="failed" /> : <Badge value="succeeded" />}
      </h3>
      <dl class="facts">
        <dt>At</dt>
        <dd>
          <Time value={attempt.attemptedAt} />
        </dd>
        <dt>Took</dt>
        <dd>{attempt.responseTimeMs} ms</dd>
        {attempt.error && (
          <>
            <dt>Error</dt>
            <dd>{attempt.error}</dd>
          </>
        )}
      </dl>
      {attempt.requestHeaders && (
        <>
          <h4>Request headers sent</h4>
          <Pre class="request-headers">{headerLines(attempt.requestHeaders)}</Pre>
        </>
      )}
      {attempt.responseHeaders && Object.keys(attempt.responseHeaders).length > 0 && (
        <>
          <h4>Response headers</h4>
          <Pre>{headerLines(attempt.responseHeaders)}</Pre>
        </>
      )}
      {attempt.responseBody !== null && (
        <>
          <h4>Response body (first 4 KiB)</h4>
          <Pre class="response-body">{attempt.responseBody === '' ? '(empty)' : attempt.responseBody}</Pre>
        </>
      )}
    </article>
  );
}

function DeliveryBody({ delivery, webhookPath }: { delivery: DeliveryDetail; webhookPath: string }) {
  const can = useCan();
  const pending = delivery.status === 'pending';
  return (
    <>
      <p>
        <a href={webhookPath}>Back to the subscription</a>
      </p>
      {/* While pending, the script refreshes this region until the delivery settles; without it, reload. */}
      <div id="delivery-state" data-refresh={pending ? '1000' : undefined} aria-live="polite">
        <dl class="facts">
          <dt>Event</dt>
          <dd>
            {delivery.event}
            {delivery.test && <span class="tag">test</span>}
          </dd>
          <dt>Status</dt>
          <dd>
            <Badge value={delivery.status} />
          </dd>
          <dt>Attempts</dt>
          <dd>{delivery.attemptCount}</dd>
          <dt>Next attempt</dt>
          <dd>
            <Time value={delivery.nextAttemptAt} />
          </dd>
          <dt>Created</dt>
          <dd>
            <Time value={delivery.createdAt} />
          </dd>
        </dl>
        <section aria-labelledby="attempts-title">
          <h2 id="attempts-title">Attempts and responses</h2>
          {delivery.attempts.length === 0 ? <p>No attempt yet.</p> : delivery.attempts.map((attempt) => <Attempt attempt={attempt} />)}
        </section>
      </div>
      {can('webhooks:write') && (
        <>
          <RowProblem row={delivery.id} />
          <ActionButton action={`${webhookPath}/deliveries/${delivery.id}/redeliver`} label="Redeliver" />
        </>
      )}
      <section aria-labelledby="request-title">
        <h2 id="request-title">Request body</h2>
        <p class="hint">
          POSTed as application/json, signed afresh at each attempt: each attempt above shows the headers it sent (X-Service-Signature, webhook-signature).
        </p>
        <Pre>{JSON.stringify(delivery.payload, null, 2)}</Pre>
      </section>
    </>
  );
}

/** A delivery's attempts with what the receiver answered, and sending it again. */
export function deliveryPages(router: Router, { deps, assets }: DashboardApp): void {
  router.get('/webhooks/:webhookId/deliveries/:deliveryId', async (req, res) => {
    const delivery = await callOperation(getDelivery, callerOf(req, res, deps), { params: req.params });
    renderPage(req, res, assets, {
      title: `Delivery ${delivery.id}`,
      section: 'webhooks',
      body: <DeliveryBody delivery={delivery} webhookPath={`/dashboard/webhooks/${delivery.webhookId}`} />,
    });
  });

  const deliveryPath = (req: Request) => `/dashboard/webhooks/${req.params.webhookId}/deliveries/${req.params.deliveryId}`;
  // Asked from the log, a refusal is shown in the log's row; from the delivery's page, on it.
  const back = (req: Request) => (text(formOf(req), 'from') === 'log' ? `/dashboard/webhooks/${req.params.webhookId}` : deliveryPath(req));
  router.post(
    '/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    rowAction(
      deps,
      back,
      (req) => String(req.params.deliveryId),
      async (req, res) => {
        await callOperation(redeliver, callerOf(req, res, deps), { params: req.params });
        redirectDone(res, deliveryPath(req), 'redelivered');
      },
    ),
  );
}

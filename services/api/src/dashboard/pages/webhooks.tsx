import type { Request, Response, Router } from 'express';
import { createWebhook } from '../../modules/webhooks/create-webhook';
import { deleteWebhook } from '../../modules/webhooks/delete-webhook';
import { getWebhook } from '../../modules/webhooks/get-webhook';
import { getWebhookSecret } from '../../modules/webhooks/get-webhook-secret';
import { getWebhookStats } from '../../modules/webhooks/get-webhook-stats';
import { listDeliveries } from '../../modules/webhooks/list-deliveries';
import { listWebhooks } from '../../modules/webhooks/list-webhooks';
import { recover } from '../../modules/webhooks/recover-deliveries';
import { testWebhook } from '../../modules/webhooks/test-webhook';
import { updateWebhook } from '../../modules/webhooks/update-webhook';
import type { WebhookRecord } from '../../modules/webhooks/webhook-record';
import { generateSecret, MAX_CONCURRENCY } from '../../modules/webhooks/webhook-rules';
import { callerOf } from '../context';
import { controlsOf, controlValuesOf } from '../subscriber-controls-form';
import { formOf, list, numeric, optional, orNull, queryOf, text, utcTimestamp, type Form } from '../form';
import { redirectDone } from '../notices';
import { callOperation } from '../operation';
import { problemOf, type Problem } from '../problem';
import type { DashboardApp } from '../dashboard-app';
import { Badge, Pager, PostForm, ProblemSummary, ShownOnce } from '../views/components';
import { useCan } from '../views/page-context';
import { renderPage } from '../views/render';
import { DeliveryLog, EditWebhookForm, StatsPanel, WebhookActions, WebhookSummary, type WebhookForm, type WebhookPageProblem } from '../views/webhook-detail';
import { WebhookFields } from '../views/webhook-fields';
import { deliveryPages } from './deliveries';

const PATH = '/dashboard/webhooks';
const LOG_FILTERS = ['status', 'event', 'offset'] as const;

/** A datetime-local value a day back: where recovery usually starts. */
const dayAgo = () => new Date(Date.now() - 24 * 3600 * 1000).toISOString().slice(0, 16);

/** Webhook secrets are not shown once only: an admin can reveal the current one on its page (docs/decisions.md#http-behaviour-and-secrets-at-rest). */
const REVEALABLE = "Copy it now. An admin can reveal the current secret again on the subscription's page.";

const webhookBody = (form: Form, editing: boolean) => ({
  url: text(form, 'url'),
  events: list(form, 'events'),
  description: orNull(text(form, 'description')),
  // Emptied: the default on create, unchanged on edit; an emptied rate limit is none.
  maxConcurrency: numeric(optional(text(form, 'maxConcurrency'))),
  rateLimit: numeric(orNull(text(form, 'rateLimit'))),
  ...controlsOf(form, editing),
});

/** A subscription's fields as its edit form shows them. */
const formValuesOf = (webhook: WebhookRecord): Form => ({
  url: webhook.url,
  description: webhook.description ?? '',
  events: webhook.events,
  maxConcurrency: String(webhook.maxConcurrency),
  rateLimit: webhook.rateLimit === null ? '' : String(webhook.rateLimit),
  ...controlValuesOf(webhook),
});

function CreateWebhookForm({ values, problem }: { values: Form; problem?: Problem | undefined }) {
  return (
    <PostForm action={PATH} label="Create a subscription">
      <h2>Create a subscription</h2>
      <ProblemSummary problem={problem} />
      <WebhookFields values={values} problem={problem} />
      <button type="submit">Create subscription</button>
    </PostForm>
  );
}

function WebhookList({ webhooks, pagination }: { webhooks: WebhookRecord[]; pagination: { total: number; limit: number; offset: number; hasMore: boolean } }) {
  if (webhooks.length === 0) return <p>No subscriptions in this mode yet.</p>;
  return (
    <>
      <table>
        <caption>Subscriptions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Status</th>
            <th scope="col">Events</th>
          </tr>
        </thead>
        <tbody>
          {webhooks.map((webhook) => (
            <tr>
              <th scope="row">
                <a href={`${PATH}/${webhook.id}`}>{webhook.url}</a>
                {webhook.description && <div class="muted">{webhook.description}</div>}
              </th>
              <td>
                <Badge value={webhook.status} />
                {webhook.pausedUntil && <span class="tag">paused</span>}
              </td>
              <td>{webhook.events.join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager path={PATH} query={{}} pagination={pagination} />
    </>
  );
}

function WebhooksBody(props: {
  webhooks: WebhookRecord[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
  values: Form;
  problem?: Problem | undefined;
  created?: { id: string; secret?: string | undefined };
}) {
  const can = useCan();
  return (
    <>
      {props.created && (
        <>
          {props.created.secret && <ShownOnce id="new-secret" label="The subscription's signing secret" value={props.created.secret} note={REVEALABLE} />}
          <p class="notice" role="status">
            Subscription created. <a href={`${PATH}/${props.created.id}`}>Open it</a> to send a test delivery.
          </p>
        </>
      )}
      <div class="split">
        <section>
          <WebhookList webhooks={props.webhooks} pagination={props.pagination} />
        </section>
        {can('webhooks:write') && <CreateWebhookForm values={props.values} problem={props.problem} />}
      </div>
    </>
  );
}

/** Webhooks: subscriptions, each with its health, its delivery log and what can be done with it. */
export function webhookPages(router: Router, { deps, assets }: DashboardApp): void {
  async function showList(
    req: Request,
    res: Response,
    extra: { status?: number; values?: Form; problem?: Problem; created?: { id: string; secret?: string | undefined } } = {},
  ) {
    const webhooks = await callOperation(listWebhooks, callerOf(req, res, deps), { query: queryOf(req, ['offset']) });
    renderPage(req, res, assets, {
      title: 'Webhooks',
      section: 'webhooks',
      status: extra.status ?? 200,
      body: (
        <WebhooksBody
          webhooks={webhooks.data}
          pagination={webhooks.pagination}
          values={extra.values ?? { events: ['*'], maxConcurrency: String(MAX_CONCURRENCY.default) }}
          problem={extra.problem}
          created={extra.created}
        />
      ),
    });
  }

  async function showWebhook(
    req: Request,
    res: Response,
    extra: { status?: number; problem?: WebhookPageProblem; values?: Form; secret?: string; revealed?: string } = {},
  ) {
    const caller = callerOf(req, res, deps);
    const params = { webhookId: req.params.webhookId };
    const filters = queryOf(req, LOG_FILTERS);
    const [webhook, stats, deliveries] = await Promise.all([
      callOperation(getWebhook, caller, { params }),
      callOperation(getWebhookStats, caller, { params }),
      callOperation(listDeliveries, caller, { params, query: filters }),
    ]);
    const editing = extra.problem?.form === 'edit' ? (extra.values ?? {}) : formValuesOf(webhook);
    const can = caller.tenant.permissions.has('webhooks:write');
    renderPage(req, res, assets, {
      title: webhook.description || 'Subscription',
      section: 'webhooks',
      status: extra.status ?? 200,
      body: (
        <>
          {extra.secret && <ShownOnce id="new-secret" label="The new signing secret" value={extra.secret} note={REVEALABLE} />}
          {extra.revealed && (
            <ShownOnce
              id="current-secret"
              label="The current signing secret"
              value={extra.revealed}
              note="Anyone holding it can sign requests your receiver will accept: keep it out of logs and tickets."
            />
          )}
          <WebhookSummary webhook={webhook} />
          <StatsPanel stats={stats} />
          {can && <WebhookActions webhook={webhook} problem={extra.problem} values={extra.problem ? (extra.values ?? {}) : {}} recoverSince={dayAgo()} />}
          <DeliveryLog webhook={webhook} deliveries={deliveries} filters={filters} />
          {can && <EditWebhookForm webhook={webhook} values={editing} problem={extra.problem} />}
        </>
      ),
    });
  }

  /** Runs one of the page's forms; a refusal re-renders the page with the problem beside that form. */
  const onWebhookForm = (form: WebhookForm, act: (req: Request, res: Response, values: Form) => Promise<void>) => async (req: Request, res: Response) => {
    const values = formOf(req);
    try {
      await act(req, res, values);
    } catch (err) {
      const problem = problemOf(err);
      await showWebhook(req, res, { status: problem.status, problem: { form, problem }, values });
    }
  };

  router.get('/webhooks', (req, res) => showList(req, res));

  router.post('/webhooks', async (req, res) => {
    const values = formOf(req);
    try {
      const created = await callOperation(createWebhook, callerOf(req, res, deps), { body: webhookBody(values, false) });
      await showList(req, res, { status: 201, created: { id: created.id, secret: created.secret } });
    } catch (err) {
      const problem = problemOf(err);
      await showList(req, res, { status: problem.status, values, problem });
    }
  });

  router.get('/webhooks/:webhookId', (req, res) => showWebhook(req, res));

  router.post(
    '/webhooks/:webhookId',
    onWebhookForm('edit', async (req, res, values) => {
      await callOperation(updateWebhook, callerOf(req, res, deps), { params: req.params, body: webhookBody(values, true) });
      redirectDone(res, `${PATH}/${req.params.webhookId}`, 'webhook-updated');
    }),
  );

  router.post('/webhooks/:webhookId/status', async (req, res) => {
    const status = text(formOf(req), 'status');
    await callOperation(updateWebhook, callerOf(req, res, deps), { params: req.params, body: { status } });
    redirectDone(res, `${PATH}/${req.params.webhookId}`, status === 'active' ? 'webhook-enabled' : 'webhook-disabled');
  });

  router.post(
    '/webhooks/:webhookId/secret',
    onWebhookForm('rotate', async (req, res, values) => {
      // The same generator as a create without a secret; the API's rotation then takes it like any supplied one.
      const secret = text(values, 'secret') || generateSecret();
      await callOperation(updateWebhook, callerOf(req, res, deps), { params: req.params, body: { secret } });
      await showWebhook(req, res, { secret });
    }),
  );

  // A POST, so that the secret is in no URL, history or prefetch, and a form of another site cannot ask for it (CSRF).
  router.post('/webhooks/:webhookId/secret/reveal', async (req, res) => {
    const { secret } = await callOperation(getWebhookSecret, callerOf(req, res, deps), { params: req.params });
    await showWebhook(req, res, { revealed: secret });
  });

  router.post('/webhooks/:webhookId/delete', async (req, res) => {
    await callOperation(deleteWebhook, callerOf(req, res, deps), { params: req.params });
    redirectDone(res, PATH, 'webhook-deleted');
  });

  router.post(
    '/webhooks/:webhookId/test',
    onWebhookForm('test', async (req, res, values) => {
      const delivery = await callOperation(testWebhook, callerOf(req, res, deps), { params: req.params, body: { event: optional(text(values, 'event')) } });
      redirectDone(res, `${PATH}/${req.params.webhookId}/deliveries/${delivery.id}`, 'test-sent');
    }),
  );

  router.post(
    '/webhooks/:webhookId/recover',
    onWebhookForm('recover', async (req, res, values) => {
      const { recovered } = await callOperation(recover, callerOf(req, res, deps), {
        params: req.params,
        body: { since: utcTimestamp(text(values, 'since')) },
      });
      redirectDone(res, `${PATH}/${req.params.webhookId}`, 'recovered', recovered);
    }),
  );

  deliveryPages(router, { deps, assets });
}

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
import { redirectWithFlash } from '../flash';
import { redirectDone } from '../notices';
import type { Caller } from '../../http/route';
import { callOperation } from '../../pipeline';
import { problemOf, type Problem } from '../problem';
import type { DashboardApp } from '../dashboard-app';
import { ColumnHeads, Badge, Pager, PostForm, ProblemSummary, Scroll } from '../views/components';
import { useCan } from '../views/page-context';
import { renderPage } from '../views/render';
import {
  DeliveryLog,
  HourlyPanel,
  ReenableForm,
  WebhookActions,
  WebhookSettings,
  WebhookStatus,
  type WebhookForm,
  type WebhookPageProblem,
} from '../views/webhook-detail';
import { WebhookFields } from '../views/webhook-fields';
import { deliveryPages } from './deliveries';

const PATH = '/dashboard/webhooks';
const LOG_FILTERS = ['status', 'event', 'q', 'from', 'to', 'offset'] as const;

/**
 * The log's filters as the page's address has them, as the list operation takes them: one search box
 * for a delivery, an event or a resource id (told apart by their prefixes), and a range of days (UTC).
 */
function logQuery(filters: Record<string, string>): Record<string, string> {
  const { q, from, to, ...rest } = filters;
  const query: Record<string, string> = { ...rest };
  if (q) query[q.startsWith('dlv_') ? 'deliveryId' : q.startsWith('evt_') ? 'eventId' : 'resourceId'] = q;
  if (from) query.since = utcTimestamp(from);
  // Through the whole of the last day.
  if (to && /^\d{4}-\d\d-\d\d$/.test(to)) query.until = new Date(Date.parse(`${to}T00:00:00Z`) + 24 * 3600 * 1000).toISOString();
  else if (to) query.until = to;
  return query;
}

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
  ordering: optional(text(form, 'ordering')),
  ...controlsOf(form, editing),
});

/** A subscription's fields as its edit form shows them. */
const formValuesOf = (webhook: WebhookRecord): Form => ({
  url: webhook.url,
  description: webhook.description ?? '',
  events: webhook.events,
  maxConcurrency: String(webhook.maxConcurrency),
  rateLimit: webhook.rateLimit === null ? '' : String(webhook.rateLimit),
  ordering: webhook.ordering,
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
      <Scroll label="Subscriptions">
        <table>
          <caption>Subscriptions, newest first</caption>
          <ColumnHeads names={['Endpoint', 'Status', 'Events']} />
          <tbody>
            {webhooks.map((webhook) => (
              <tr>
                <th scope="row">
                  <a class="url" href={`${PATH}/${webhook.id}`}>
                    {webhook.url}
                  </a>
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
      </Scroll>
      <Pager path={PATH} query={{}} pagination={pagination} />
    </>
  );
}

function WebhooksBody(props: {
  webhooks: WebhookRecord[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
  values: Form;
  problem?: Problem | undefined;
}) {
  const can = useCan();
  return (
    <>
      <p>
        <a href="/dashboard/events">The event types</a>: what each means, its schema and an example.
      </p>
      <div class="split">
        <section>
          <WebhookList webhooks={props.webhooks} pagination={props.pagination} />
        </section>
        {can('webhooks:write') && <CreateWebhookForm values={props.values} problem={props.problem} />}
      </div>
    </>
  );
}

const RECOVERY_WINDOW_MS = 14 * 24 * 3600 * 1000;

/**
 * Where recovery since a disable starts: at the creation of the oldest delivery whose last retry
 * failed with the disable (that delivery was made hours before it, and must be sent again too), or at
 * the disable; never more than recovery's 14 days back.
 */
async function recoverySince(caller: Caller, webhookId: string, disabledAt: Date): Promise<Date> {
  const failed = await callOperation(listDeliveries, caller, { params: { webhookId }, query: { status: 'failed', limit: 100 } });
  const withTheDisable = failed.data.filter((delivery) => delivery.lastAttemptAt && Date.parse(delivery.lastAttemptAt) >= disabledAt.getTime() - 60_000);
  const oldest = Math.min(disabledAt.getTime(), ...withTheDisable.map((delivery) => Date.parse(delivery.createdAt)));
  return new Date(Math.max(oldest, Date.now() - RECOVERY_WINDOW_MS + 60_000));
}

/** Webhooks: subscriptions, each with its health, its delivery log and what can be done with it. */
export function webhookPages(router: Router, { deps, assets }: DashboardApp): void {
  async function showList(req: Request, res: Response, extra: { status?: number; values?: Form; problem?: Problem } = {}) {
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
        />
      ),
    });
  }

  async function showWebhook(req: Request, res: Response, extra: { status?: number; problem?: WebhookPageProblem; values?: Form } = {}) {
    const caller = callerOf(req, res, deps);
    const params = { webhookId: req.params.webhookId };
    const filters = queryOf(req, LOG_FILTERS);
    const [webhook, stats, deliveries] = await Promise.all([
      callOperation(getWebhook, caller, { params }),
      callOperation(getWebhookStats, caller, { params }),
      callOperation(listDeliveries, caller, { params, query: logQuery(filters) }),
    ]);
    const editing = extra.problem?.form === 'edit' ? (extra.values ?? {}) : formValuesOf(webhook);
    const can = caller.tenant.permissions.has('webhooks:write');
    renderPage(req, res, assets, {
      title: webhook.description || 'Subscription',
      section: 'webhooks',
      status: extra.status ?? 200,
      body: (
        <>
          <WebhookStatus webhook={webhook} stats={stats} />
          {can && webhook.status === 'disabled' && <ReenableForm webhook={webhook} />}
          <DeliveryLog
            webhook={webhook}
            deliveries={deliveries}
            filters={filters}
            problem={extra.problem?.form === 'log' ? extra.problem.problem : undefined}
          />
          <HourlyPanel stats={stats} />
          {can && <WebhookActions webhook={webhook} problem={extra.problem} values={extra.problem ? (extra.values ?? {}) : {}} recoverSince={dayAgo()} />}
          <WebhookSettings webhook={webhook} values={editing} problem={extra.problem} />
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
      const path = `${PATH}/${created.id}?done=webhook-created`;
      if (created.secret)
        await redirectWithFlash(req, res, deps, path, {
          kind: 'shown-once',
          label: "The subscription's signing secret",
          value: created.secret,
          note: REVEALABLE,
        });
      else res.redirect(303, path);
    } catch (err) {
      const problem = problemOf(err);
      await showList(req, res, { status: problem.status, values, problem });
    }
  });

  router.get('/webhooks/:webhookId', async (req, res) => {
    try {
      await showWebhook(req, res);
    } catch (err) {
      // A search or range the API refuses is shown beside the log's filters, not as a page of its own.
      const problem = problemOf(err);
      if (problem.status !== 400) throw err;
      const clean = { ...req, query: { status: req.query.status, event: req.query.event } } as unknown as Request;
      await showWebhook(clean, res, { status: 400, problem: { form: 'log', problem } });
    }
  });

  router.post(
    '/webhooks/:webhookId',
    onWebhookForm('edit', async (req, res, values) => {
      await callOperation(updateWebhook, callerOf(req, res, deps), { params: req.params, body: webhookBody(values, true) });
      redirectDone(res, `${PATH}/${req.params.webhookId}`, 'webhook-updated');
    }),
  );

  router.post('/webhooks/:webhookId/status', async (req, res) => {
    const form = formOf(req);
    const status = text(form, 'status');
    const caller = callerOf(req, res, deps);
    const before = await callOperation(getWebhook, caller, { params: req.params });
    await callOperation(updateWebhook, caller, { params: req.params, body: { status } });
    const path = `${PATH}/${req.params.webhookId}`;
    // Re-enabling offers to recover since the disable: what failed meanwhile and what was never sent.
    if (status === 'active' && text(form, 'recover') === 'since-disabled' && before.disabledAt) {
      const since = await recoverySince(caller, before.id, new Date(before.disabledAt));
      const { recovered } = await callOperation(recover, caller, { params: req.params, body: { since: since.toISOString() } });
      redirectDone(res, path, 'webhook-recovered', recovered);
      return;
    }
    redirectDone(res, path, status === 'active' ? 'webhook-enabled' : 'webhook-disabled');
  });

  router.post(
    '/webhooks/:webhookId/secret',
    onWebhookForm('rotate', async (req, res, values) => {
      // The same generator as a create without a secret; the API's rotation then takes it like any supplied one.
      const secret = text(values, 'secret') || generateSecret();
      await callOperation(updateWebhook, callerOf(req, res, deps), { params: req.params, body: { secret } });
      await redirectWithFlash(req, res, deps, `${PATH}/${req.params.webhookId}`, {
        kind: 'shown-once',
        label: 'The new signing secret',
        value: secret,
        note: REVEALABLE,
      });
    }),
  );

  // A POST, so that the secret is in no URL, history or prefetch, and a form of another site cannot ask for it (CSRF).
  router.post('/webhooks/:webhookId/secret/reveal', async (req, res) => {
    const { secret } = await callOperation(getWebhookSecret, callerOf(req, res, deps), { params: req.params });
    await redirectWithFlash(req, res, deps, `${PATH}/${req.params.webhookId}`, {
      kind: 'shown-once',
      label: 'The current signing secret',
      value: secret,
      note: 'Anyone holding it can sign requests your receiver will accept: keep it out of logs and tickets. Reveal it again here when needed.',
    });
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

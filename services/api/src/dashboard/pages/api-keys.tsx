import type { Request, Response, Router } from 'express';
import { effectivePermissions, PERMISSIONS } from '../../http/permissions';
import type { Envelope } from '../../http/pagination';
import { createApiKey } from '../../modules/api-keys/create-api-key';
import type { ApiKeyRecord } from '../../modules/api-keys/issue-api-key';
import { listApiKeys } from '../../modules/api-keys/list-api-keys';
import { revokeApiKey } from '../../modules/api-keys/revoke-api-key';
import { callerOf, requireDashboard } from '../context';
import { formOf, list, optional, queryOf, text, utcTimestamp, type Form } from '../form';
import { redirectWithFlash } from '../flash';
import { redirectDone } from '../notices';
import { rowAction } from '../row-action';
import { callOperation } from '../../pipeline';
import { problemOf, type Problem } from '../problem';
import type { DashboardApp } from '../dashboard-app';
import {
  ColumnHeads,
  ActionButton,
  Badge,
  Checkboxes,
  optionsOf,
  Pager,
  PostForm,
  ProblemSummary,
  RowProblem,
  Scroll,
  SelectField,
  TextField,
  Time,
} from '../views/components';
import { useCan } from '../views/page-context';
import { renderPage } from '../views/render';

const PATH = '/dashboard/keys';

function CreateKeyForm({ problem, values }: { problem?: Problem | undefined; values: Form }) {
  return (
    <PostForm action={PATH} label="Create an API key">
      <h2>Create a key</h2>
      <ProblemSummary problem={problem} />
      <TextField name="name" label="Name" required value={text(values, 'name')} problem={problem} />
      <SelectField
        name="mode"
        label="Mode"
        options={[
          { value: 'live', label: 'live' },
          { value: 'test', label: 'test' },
        ]}
        value={text(values, 'mode') || 'live'}
        problem={problem}
      />
      <Checkboxes
        name="permissions"
        legend="Permissions"
        hint="All (*) follows the owner's role; a key never holds more than its owner's role allows. events:read reads the events (every role has it); webhooks:read reads subscriptions and their deliveries (admins only) and the events too."
        options={[{ value: '*', label: 'All (*)' }, ...optionsOf(PERMISSIONS)]}
        checked={list(values, 'permissions').length > 0 ? list(values, 'permissions') : ['*']}
        problem={problem}
      />
      <TextField name="expiresAt" type="date" label="Expires on (optional, UTC midnight)" value={text(values, 'expiresAt')} problem={problem} />
      <button type="submit">Create key</button>
    </PostForm>
  );
}

function KeyTable({ keys, userId }: { keys: Envelope<ApiKeyRecord>; userId: string }) {
  const can = useCan();
  return (
    <>
      <Scroll label="API keys">
        <table>
          <caption>Keys of the organization, newest first</caption>
          <ColumnHeads names={['Name', 'Prefix', 'Mode', 'Permissions', 'Owner', 'Created', 'Expires', 'State']} />
          <tbody>
            {keys.data.map((key) => (
              <tr>
                <th scope="row">
                  {key.name}
                  <RowProblem row={key.id} />
                </th>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>
                  <Badge value={key.mode} />
                </td>
                <td>{key.permissions.join(', ')}</td>
                <td>{key.userId === userId ? 'you' : key.userId}</td>
                <td>
                  <Time value={key.createdAt} />
                </td>
                <td>
                  <Time value={key.expiresAt} />
                </td>
                <td>
                  {key.revokedAt ? (
                    <Badge value="revoked" />
                  ) : (
                    can('api_keys:write') && (
                      <ActionButton
                        action={`${PATH}/${key.id}/revoke`}
                        label="Revoke"
                        name={`Revoke ${key.name}`}
                        confirm={`Revoke the key "${key.name}"? It stops working at once.`}
                        danger
                      />
                    )
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      <Pager path={PATH} query={{}} pagination={keys.pagination} />
    </>
  );
}

/** API keys: create one with permissions, mode and expiry (shown once), list, revoke. */
export function apiKeyPages(router: Router, { deps, assets }: DashboardApp): void {
  async function show(req: Request, res: Response, extra: { status?: number; problem?: Problem; values?: Form } = {}) {
    const { session } = requireDashboard(req);
    const keys = await callOperation(listApiKeys, callerOf(req, res, deps), { query: queryOf(req, ['offset']) });
    renderPage(req, res, assets, {
      title: 'API keys',
      section: 'keys',
      status: extra.status ?? 200,
      body: (
        <>
          <div class="stacked">
            <section>
              <KeyTable keys={keys} userId={session.userId} />
            </section>
            <CreateKeyForm problem={extra.problem} values={extra.values ?? {}} />
          </div>
        </>
      ),
    });
  }

  router.get('/keys', async (req, res) => {
    const { session } = requireDashboard(req);
    // Keys are managed with live rights only (a test key never manages keys); say so rather than refuse.
    if (session.mode === 'test' && effectivePermissions(['*'], session.role, 'live').has('api_keys:write')) {
      renderPage(req, res, assets, {
        title: 'API keys',
        section: 'keys',
        body: (
          <>
            <p>
              Keys belong to the organization, not to a mode, and are managed in live mode (as a test key cannot manage them). Switch to live to create or
              revoke keys of either mode.
            </p>
            <PostFormSwitchToLive />
          </>
        ),
      });
      return;
    }
    await show(req, res);
  });

  router.post('/keys', async (req, res) => {
    const form = formOf(req);
    const expiresAt = text(form, 'expiresAt');
    try {
      const created = await callOperation(createApiKey, callerOf(req, res, deps), {
        body: {
          name: text(form, 'name'),
          mode: optional(text(form, 'mode')),
          permissions: list(form, 'permissions'),
          ...(expiresAt && { expiresAt: utcTimestamp(expiresAt) }),
        },
      });
      await redirectWithFlash(req, res, deps, PATH, { kind: 'shown-once', label: `Your new key “${created.name}”`, value: created.key });
    } catch (err) {
      const problem = problemOf(err);
      await show(req, res, { status: problem.status, problem, values: form });
    }
  });

  router.post(
    '/keys/:keyId/revoke',
    rowAction(
      deps,
      PATH,
      (req) => String(req.params.keyId),
      async (req, res) => {
        await callOperation(revokeApiKey, callerOf(req, res, deps), { params: req.params });
        redirectDone(res, PATH, 'key-revoked');
      },
    ),
  );
}

function PostFormSwitchToLive() {
  return (
    <PostForm action="/dashboard/mode" label="Switch to live">
      <input type="hidden" name="mode" value="live" />
      <input type="hidden" name="next" value={PATH} />
      <button type="submit">Switch to live</button>
    </PostForm>
  );
}

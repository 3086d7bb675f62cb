import { webhookHeadersContext, type SecretBox, type TenantTx } from '@worktrack/db';
import { maskHeaderValue } from '@worktrack/webhooks';
import { invalid } from '../../http/errors';
import { compileFilter } from './subscription-filter';
import type { WebhookInput } from './webhook-schemas';

type Controls = Pick<WebhookInput, 'projectIds' | 'filter' | 'headers'>;

/** Every project named is the tenant's (same organization and mode); else 400 naming `projectIds`. */
export async function assertTenantProjects(tx: TenantTx, projectIds: string[]): Promise<void> {
  const known = new Set(await tx.projects.existingIds(projectIds));
  const unknown = projectIds.filter((id) => !known.has(id));
  if (unknown.length > 0) throw invalid('projectIds', `No such project: ${unknown.join(', ')}`);
}

/**
 * The columns of the controls the request gave (docs/decisions.md#subscriber-controls), for the
 * subscription's create or update: its projects, its filter as given, and its headers masked for
 * the record and sealed for the worker. A field the request left out is left as it is.
 */
export function controlColumns(webhookId: string, { projectIds, filter, headers }: Controls, secrets: SecretBox) {
  return {
    ...(projectIds !== undefined && { projectIds: projectIds ?? [] }),
    ...(filter !== undefined && { filter }),
    ...(headers !== undefined && {
      headers: headers === null ? null : Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, maskHeaderValue(value)])),
      headersSealed: headers === null ? null : secrets.seal(JSON.stringify(headers), webhookHeadersContext(webhookId)),
    }),
  };
}

/** Stores the compiled form of a filter the request gave (null: none), once its row is written. */
export async function storeCompiledFilter(tx: TenantTx, webhookId: string, filter: Controls['filter']): Promise<void> {
  if (filter === undefined) return;
  // Checked by the request's schema already; compiled again here, where it is stored.
  const compiled = filter === null ? null : compileFilter(filter);
  if (compiled && !compiled.ok) throw invalid('filter', compiled.message);
  await tx.webhooks.setFilterPath(webhookId, compiled?.jsonpath ?? null);
}

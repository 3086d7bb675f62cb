import { invalid } from '../http/errors';
import type { WebhookRecord } from '../modules/webhooks/webhook-record';
import { text, type Form } from './form';

/*
 * The webhook form's subscriber controls (docs/dashboard.md): projects as ids separated by
 * commas or spaces, the filter as JSON, headers as `Name: value` lines. Headers are never shown back
 * (the record masks them): on edit an empty box keeps them, and the "remove" box removes them.
 */

function projectIdsOf(form: Form): string[] | null {
  const ids = text(form, 'projectIds')
    .split(/[\s,]+/)
    .filter((id) => id !== '');
  return ids.length > 0 ? ids : null;
}

function filterOf(form: Form): Record<string, unknown> | null {
  const written = text(form, 'filter').trim();
  if (written === '') return null;
  try {
    return JSON.parse(written) as Record<string, unknown>;
  } catch (err) {
    throw invalid('filter', `filter must be JSON: ${(err as Error).message}`);
  }
}

function headersOf(form: Form, editing: boolean): Record<string, string> | null | undefined {
  if (text(form, 'removeHeaders') === 'on') return null;
  const lines = text(form, 'headers')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  if (lines.length === 0) return editing ? undefined : null;
  return Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      if (colon < 1) throw invalid('headers', `Write each header as Name: value (not ${JSON.stringify(line)})`);
      return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
    }),
  );
}

/** The controls of a submitted create (`editing` false) or edit form, as the API takes them. */
export const controlsOf = (form: Form, editing: boolean) => ({
  projectIds: projectIdsOf(form),
  filter: filterOf(form),
  headers: headersOf(form, editing),
});

/** The controls as the edit form shows them; headers stay out of it. */
export const controlValuesOf = (webhook: WebhookRecord): Form => ({
  projectIds: (webhook.projectIds ?? []).join(', '),
  filter: webhook.filter === null ? '' : JSON.stringify(webhook.filter, null, 2),
});

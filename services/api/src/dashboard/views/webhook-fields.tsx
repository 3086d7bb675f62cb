import { EVENT_TYPES } from '@worktrack/events';
import { list, text, type Form } from '../form';
import type { Problem } from '../problem';
import { MAX_CONCURRENCY, RATE_LIMIT } from '../../modules/webhooks/webhook-rules';
import { Checkboxes, NumberField, SelectField, TextArea, TextField } from './components';

const ORDERING_OPTIONS = [
  { value: 'none', label: 'Any order' },
  { value: 'resource', label: 'In order, per task, project, comment, file, member, label or relation' },
];

const EVENT_OPTIONS = [{ value: '*', label: 'Every event (*)' }, ...EVENT_TYPES.map((type) => ({ value: type, label: type }))];

/**
 * The subscription's fields, the same for create and edit; on edit, `headerNames` lists the custom
 * headers it has, whose values are never shown back.
 */
export function WebhookFields({ values, problem, headerNames }: { values: Form; problem?: Problem | undefined; headerNames?: string[] | undefined }) {
  return (
    <>
      <TextField
        name="url"
        label="Endpoint URL"
        type="url"
        required
        value={text(values, 'url')}
        hint="https and a public address, unless this service allows the host for local testing"
        problem={problem}
      />
      <TextField name="description" label="Description (optional)" value={text(values, 'description')} problem={problem} />
      <Checkboxes name="events" legend="Events" options={EVENT_OPTIONS} checked={list(values, 'events')} problem={problem} />
      <NumberField
        name="maxConcurrency"
        label="Requests at once"
        min={MAX_CONCURRENCY.min}
        max={MAX_CONCURRENCY.max}
        required
        value={text(values, 'maxConcurrency')}
        hint={`How many requests your endpoint gets at the same time, ${MAX_CONCURRENCY.min}-${MAX_CONCURRENCY.max} (default ${MAX_CONCURRENCY.default}); the others wait their turn.`}
        problem={problem}
      />
      <NumberField
        name="rateLimit"
        label="Requests per second (optional)"
        min={RATE_LIMIT.min}
        max={RATE_LIMIT.max}
        value={text(values, 'rateLimit')}
        placeholder="No limit"
        hint={`At most this many requests per second, ${RATE_LIMIT.min}-${RATE_LIMIT.max}. Leave empty for no limit.`}
        problem={problem}
      />
      <SelectField
        name="ordering"
        label="Order"
        options={ORDERING_OPTIONS}
        value={text(values, 'ordering')}
        hint="In order: the events about one task (or project, comment...) are sent one at a time, in the order of the changes; one that fails holds back only its own task's while it is retried."
        problem={problem}
      />
      <TextField
        name="projectIds"
        label="Projects (optional)"
        value={text(values, 'projectIds')}
        placeholder="Every project"
        hint="Project ids, separated by commas: only events of these projects are sent, and no member events. Leave empty for every event."
        problem={problem}
      />
      <TextArea
        name="filter"
        label="Filter (optional)"
        value={text(values, 'filter')}
        hint={
          'JSON over the event\'s data, every clause must match, e.g. {"priority": {"$in": ["high"]}, "dueDate": {"$gte": "2026-12-01T00:00:00Z"}}. Leave empty for no filter.'
        }
        problem={problem}
      />
      <TextArea
        name="headers"
        label="Custom headers (optional)"
        value={text(values, 'headers')}
        hint={
          headerNames && headerNames.length > 0
            ? `Sent now: ${headerNames.join(', ')} (values hidden). Leave empty to keep them; anything written here replaces them all.`
            : 'One per line, as Name: value, e.g. Authorization: Bearer <token>. Sent with every delivery; stored encrypted.'
        }
        problem={problem}
      />
      {headerNames && headerNames.length > 0 && (
        <label>
          <input type="checkbox" name="removeHeaders" /> Remove the custom headers
        </label>
      )}
    </>
  );
}

import { EVENT_TYPES } from '@worktrack/events';
import { list, text, type Form } from '../form';
import type { Problem } from '../problem';
import { MAX_CONCURRENCY, RATE_LIMIT } from '../../modules/webhooks/webhook-rules';
import { Checkboxes, NumberField, TextField } from './components';

const EVENT_OPTIONS = [{ value: '*', label: 'Every event (*)' }, ...EVENT_TYPES.map((type) => ({ value: type, label: type }))];

/** The subscription's fields, the same for create and edit. */
export function WebhookFields({ values, problem }: { values: Form; problem?: Problem | undefined }) {
  return (
    <>
      <TextField name="url" label="Endpoint URL" type="url" required value={text(values, 'url')} hint="https, and not a private address" problem={problem} />
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
    </>
  );
}

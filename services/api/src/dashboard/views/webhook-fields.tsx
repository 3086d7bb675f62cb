import { EVENT_TYPES } from '@worktrack/events';
import { list, text, type Form } from '../form';
import type { Problem } from '../problem';
import { Checkboxes, TextField } from './components';

const EVENT_OPTIONS = [{ value: '*', label: 'Every event (*)' }, ...EVENT_TYPES.map((type) => ({ value: type, label: type }))];

/** The subscription's fields, the same for create and edit. */
export function WebhookFields({ values, problem }: { values: Form; problem?: Problem | undefined }) {
  return (
    <>
      <TextField name="url" label="Endpoint URL" type="url" required value={text(values, 'url')} hint="https, and not a private address" problem={problem} />
      <TextField name="description" label="Description (optional)" value={text(values, 'description')} problem={problem} />
      <Checkboxes name="events" legend="Events" options={EVENT_OPTIONS} checked={list(values, 'events')} problem={problem} />
    </>
  );
}

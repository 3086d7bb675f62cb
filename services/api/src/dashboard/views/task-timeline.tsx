import type { Actor, MemberRecord } from '@worktrack/events';
import type { ActivityRecord, FieldChange } from '../../modules/tasks/activity-record';
import { Time } from './components';

const STATUS_WORDS: Record<string, string> = { todo: 'to do', in_progress: 'in progress', done: 'done' };

/** What a change of one field reads as, after the person's name. */
function changeInWords(field: string, { to }: FieldChange, nameOf: (userId: string) => string): string {
  switch (field) {
    case 'status':
      return `moved this to ${STATUS_WORDS[String(to)] ?? String(to)}`;
    case 'title':
      return `renamed this to “${String(to)}”`;
    case 'priority':
      return `set the priority to ${String(to)}`;
    case 'assigneeId':
      return to ? `assigned this to ${nameOf(String(to))}` : 'unassigned this';
    case 'dueDate':
      return to ? `set the due date to ${String(to).slice(0, 10)}` : 'removed the due date';
    case 'description':
      return 'edited the description';
    case 'customFields':
      return 'changed the custom fields';
    case 'labelIds':
      return 'changed the labels';
    case 'parentId':
      return to ? 'moved this under another task' : 'made this a top-level task';
    default:
      return `changed the ${field}`;
  }
}

const ENTRY_WORDS: Record<string, string> = {
  'task.created': 'created this task',
  'comment.created': 'commented',
  'comment.updated': 'edited a comment',
  'comment.deleted': 'deleted a comment',
  'relation.created': 'linked this to another task',
  'relation.deleted': 'removed a link to another task',
};

/** One entry as a sentence's predicate ("moved this to done and set the priority to high"); null for one said by another entry. */
function entryInWords(entry: ActivityRecord, nameOf: (userId: string) => string): string | null {
  // A move to done says it: its completion entry repeats it.
  if (entry.type === 'task.completed') return null;
  if (entry.changes) {
    const parts = Object.entries(entry.changes).map(([field, change]) => changeInWords(field, change, nameOf));
    return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? null);
  }
  return ENTRY_WORDS[entry.type] ?? entry.type;
}

function actorName(actor: Actor, nameOf: (userId: string) => string): string {
  return actor.type === 'user' ? nameOf(actor.userId) : 'worktrack';
}

/** A task's history in people's words ("Ada moved this to done"), oldest first. */
export function TaskTimeline({ entries, members, more }: { entries: ActivityRecord[]; members: MemberRecord[]; more: boolean }) {
  const nameOf = (userId: string) => {
    const member = members.find((m) => m.id === userId);
    return member ? (member.name ?? member.email) : 'A former member';
  };
  const lines = entries.flatMap((entry) => {
    const words = entryInWords(entry, nameOf);
    return words ? [{ entry, words }] : [];
  });
  return (
    <section aria-labelledby="activity-heading">
      <h2 id="activity-heading">Activity</h2>
      <ol class="timeline">
        {lines.map(({ entry, words }) => (
          <li key={entry.id}>
            {actorName(entry.actor, nameOf)} {words}
            {entry.actor.type === 'user' && entry.actor.apiKeyId && <span class="muted"> (through the API)</span>} <Time value={entry.createdAt} />
          </li>
        ))}
      </ol>
      {more && <p class="muted">Only the first {entries.length} entries are shown; the API lists them all.</p>}
    </section>
  );
}

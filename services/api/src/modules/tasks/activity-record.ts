import Joi from 'joi';
import type { TaskActivity } from '@worktrack/db';
import type { Actor } from '@worktrack/events';
import { out } from '../../http/record-fields';
import { actorSchema } from '../events/actor-schema';

/** One change of a field: its value before and after. */
export interface FieldChange {
  from: unknown;
  to: unknown;
}

/** One entry of a task's history (docs/decisions.md#history-actors-and-live-events): the event that made it, who, when, what changed. */
export interface ActivityRecord {
  id: string;
  type: string;
  actor: Actor;
  createdAt: string;
  changes: Record<string, FieldChange> | null;
}

export function toActivityRecord(row: TaskActivity): ActivityRecord {
  return {
    id: row.id,
    type: row.type,
    actor: row.actor as Actor,
    createdAt: row.createdAt.toISOString(),
    changes: row.changes as Record<string, FieldChange> | null,
  };
}

export const activityRecordSchema = Joi.object<ActivityRecord, true>({
  id: out.id('evt').description('The event the entry comes from'),
  type: Joi.string().required().example('task.updated').description('The event type: task.created, task.updated, task.completed, comment.created, ...'),
  actor: actorSchema,
  createdAt: out.timestamp(),
  changes: Joi.object()
    .pattern(/^.{1,100}$/, Joi.object({ from: Joi.any(), to: Joi.any() }))
    .allow(null)
    .required()
    .description('For updates, each changed field with its value before and after (`{"status": {"from": "todo", "to": "done"}}`); null otherwise'),
}).id('TaskActivity');

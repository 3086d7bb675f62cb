import Joi from 'joi';
import { RelationType, TaskStatus, type RelatedTask, type TaskRelation } from '@worktrack/db';
import type { RelationEventRecord } from '@worktrack/events';
import { out } from '../../http/record-fields';

/** How a relation reads from its second task's side. */
const INVERSE = { blocks: 'blocked_by', relates_to: 'relates_to', duplicates: 'duplicated_by' } as const;

const RELATION_SIDES = ['blocks', 'blocked_by', 'relates_to', 'duplicates', 'duplicated_by'] as const;

/** A relation seen from one of its tasks: its type from that side, and the task at the other end. */
export interface RelationRecord {
  id: string;
  type: (typeof RELATION_SIDES)[number];
  task: RelatedTask;
  createdAt: string;
}

/** The relation as `taskId` sees it, with the other task's summary. */
export function toRelationRecord(relation: TaskRelation, taskId: string, other: RelatedTask): RelationRecord {
  const fromThisSide = relation.fromTaskId === taskId;
  return {
    id: relation.id,
    type: fromThisSide ? relation.type : INVERSE[relation.type],
    task: { id: other.id, title: other.title, status: other.status, projectId: other.projectId },
    createdAt: relation.createdAt.toISOString(),
  };
}

/** The other end of a relation, seen from `taskId`. */
export const otherTaskId = (relation: TaskRelation, taskId: string) => (relation.fromTaskId === taskId ? relation.toTaskId : relation.fromTaskId);

/** In events: the relation as created, with the project of its first task. */
export function toRelationEventRecord(relation: TaskRelation, projectId: string): RelationEventRecord {
  return {
    id: relation.id,
    type: relation.type,
    taskId: relation.fromTaskId,
    relatedTaskId: relation.toTaskId,
    projectId,
    createdAt: relation.createdAt.toISOString(),
  };
}

export const relationRecordSchema = Joi.object<RelationRecord, true>({
  id: out.id('rel'),
  type: Joi.string()
    .valid(...RELATION_SIDES)
    .required()
    .description("The relation from this task's side: `blocked_by` and `duplicated_by` are `blocks` and `duplicates` seen from their second task"),
  task: Joi.object<RelatedTask, true>({
    id: out.id('tsk'),
    title: Joi.string().required(),
    status: Joi.string()
      .valid(...Object.values(TaskStatus))
      .required(),
    projectId: out.id('prj'),
  })
    .required()
    .id('RelatedTask'),
  createdAt: out.timestamp(),
}).id('Relation');

export const relationEventRecordSchema = Joi.object<RelationEventRecord, true>({
  id: out.id('rel'),
  type: Joi.string()
    .valid(...Object.values(RelationType))
    .required(),
  taskId: out.id('tsk').description('The first task: `taskId <type> relatedTaskId`'),
  relatedTaskId: out.id('tsk'),
  projectId: out.id('prj').description("The first task's project"),
  createdAt: out.timestamp(),
}).id('RelationEvent');

import type { CommentRecord, FileRecord, LabelRecord, MemberRecord, ProjectRecord, RelationEventRecord, TaskRecord } from './records';

/** Every event type of the contract (docs/decisions.md#event-types). */
export const EVENT_TYPES = [
  'task.created',
  'task.updated',
  'task.deleted',
  'task.completed',
  'project.created',
  'project.updated',
  'project.deleted',
  'member.added',
  'member.removed',
  'member.role_changed',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'file.uploaded',
  'file.deleted',
  'label.created',
  'label.updated',
  'label.deleted',
  'relation.created',
  'relation.deleted',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** What each event type says happened, as the event catalog (`GET /v1/event-types`) and the dashboard show it. */
export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  'task.created': 'A task was created. `data` is the task.',
  'task.updated': 'A task was changed. `data` is the task after the change; `previousAttributes` holds the changed fields before it.',
  'task.deleted': 'A task was deleted. `data` is the task as it was.',
  'task.completed': 'A task moved to `done` (sent beside `task.updated`). `data` is the task.',
  'project.created': 'A project was created. `data` is the project.',
  'project.updated': 'A project was changed. `data` is the project after the change; `previousAttributes` holds the changed fields before it.',
  'project.deleted': 'A project was deleted, with its tasks. `data` is the project as it was.',
  'member.added': 'Someone joined the organization (an invitation was accepted). `data` is the member.',
  'member.removed': 'A member was removed. `data` is the member as they were.',
  'member.role_changed': "A member's role changed. `data` is the member; `previousAttributes.role` is the role before.",
  'comment.created': 'A comment was added to a task. `data` is the comment.',
  'comment.updated': 'A comment was edited. `data` is the comment after the edit; `previousAttributes` holds the changed fields before it.',
  'comment.deleted': 'A comment was deleted. `data` is the comment as it was.',
  'file.uploaded': 'A file was attached to a task. `data` is the file record (its bytes are downloaded with the API).',
  'file.deleted': 'A file was deleted. `data` is the file record as it was.',
  'label.created': 'A label was created. `data` is the label. Belongs to no project: project-scoped subscriptions never receive it.',
  'label.updated': 'A label was changed. `data` is the label after the change; `previousAttributes` holds the changed fields before it.',
  'label.deleted': 'A label was deleted, and taken off every task that carried it (no `task.updated` per task). `data` is the label as it was.',
  'relation.created':
    'Two tasks were related. `data` is the relation as created (`taskId` `type` `relatedTaskId`), with `projectId` the project of its first task.',
  'relation.deleted': 'A relation was deleted (not sent when it goes with a deleted task). `data` is the relation as it was.',
};

export interface DomainEvent {
  type: EventType;
  data: object;
  /** The project it belongs to, which project-scoped subscriptions select on (docs/decisions.md#subscriber-controls); null for member and label events. */
  projectId: string | null;
}

type Changes<T> = Partial<T>;

/** The payload builders: `data` is the record as the API returns it; updates add the changed fields' old values. */
export const events = {
  taskCreated: (task: TaskRecord): DomainEvent => ({ type: 'task.created', data: task, projectId: task.projectId }),
  taskUpdated: (task: TaskRecord, previousAttributes: Changes<TaskRecord>): DomainEvent => ({
    type: 'task.updated',
    data: { ...task, previousAttributes },
    projectId: task.projectId,
  }),
  taskCompleted: (task: TaskRecord): DomainEvent => ({ type: 'task.completed', data: task, projectId: task.projectId }),
  taskDeleted: (task: TaskRecord): DomainEvent => ({ type: 'task.deleted', data: task, projectId: task.projectId }),
  projectCreated: (project: ProjectRecord): DomainEvent => ({ type: 'project.created', data: project, projectId: project.id }),
  projectUpdated: (project: ProjectRecord, previousAttributes: Changes<ProjectRecord>): DomainEvent => ({
    type: 'project.updated',
    data: { ...project, previousAttributes },
    projectId: project.id,
  }),
  projectDeleted: (project: ProjectRecord): DomainEvent => ({ type: 'project.deleted', data: project, projectId: project.id }),
  memberAdded: (member: MemberRecord): DomainEvent => ({ type: 'member.added', data: member, projectId: null }),
  memberRemoved: (member: MemberRecord): DomainEvent => ({ type: 'member.removed', data: member, projectId: null }),
  memberRoleChanged: (member: MemberRecord, previousRole: string): DomainEvent => ({
    type: 'member.role_changed',
    data: { ...member, previousAttributes: { role: previousRole } },
    projectId: null,
  }),
  // A comment record names its task, not the task's project: the caller, who loaded the task, passes it.
  commentCreated: (comment: CommentRecord, projectId: string): DomainEvent => ({ type: 'comment.created', data: comment, projectId }),
  commentUpdated: (comment: CommentRecord, previousAttributes: Changes<CommentRecord>, projectId: string): DomainEvent => ({
    type: 'comment.updated',
    data: { ...comment, previousAttributes },
    projectId,
  }),
  commentDeleted: (comment: CommentRecord, projectId: string): DomainEvent => ({ type: 'comment.deleted', data: comment, projectId }),
  fileUploaded: (file: FileRecord): DomainEvent => ({ type: 'file.uploaded', data: file, projectId: file.projectId }),
  fileDeleted: (file: FileRecord): DomainEvent => ({ type: 'file.deleted', data: file, projectId: file.projectId }),
  labelCreated: (label: LabelRecord): DomainEvent => ({ type: 'label.created', data: label, projectId: null }),
  labelUpdated: (label: LabelRecord, previousAttributes: Changes<LabelRecord>): DomainEvent => ({
    type: 'label.updated',
    data: { ...label, previousAttributes },
    projectId: null,
  }),
  labelDeleted: (label: LabelRecord): DomainEvent => ({ type: 'label.deleted', data: label, projectId: null }),
  relationCreated: (relation: RelationEventRecord): DomainEvent => ({ type: 'relation.created', data: relation, projectId: relation.projectId }),
  relationDeleted: (relation: RelationEventRecord): DomainEvent => ({ type: 'relation.deleted', data: relation, projectId: relation.projectId }),
};

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

const at = '2026-01-01T00:00:00.000Z';
const sampleTask: TaskRecord = {
  id: 'tsk_sample',
  title: 'Sample task',
  description: null,
  status: 'todo',
  priority: 'medium',
  projectId: 'prj_sample',
  assigneeId: null,
  creatorId: 'usr_sample',
  dueDate: null,
  customFields: {},
  labelIds: ['lbl_sample'],
  parentId: null,
  subtasks: { total: 0, done: 0 },
  createdAt: at,
  updatedAt: at,
};
const sampleLabel: LabelRecord = { id: 'lbl_sample', name: 'bug', color: '#d73a4a', description: null, createdAt: at, updatedAt: at };
const sampleRelation: RelationEventRecord = {
  id: 'rel_sample',
  type: 'blocks',
  taskId: 'tsk_sample',
  relatedTaskId: 'tsk_sample2',
  projectId: 'prj_sample',
  createdAt: at,
};
const sampleProject: ProjectRecord = {
  id: 'prj_sample',
  name: 'Sample project',
  description: null,
  icon: null,
  color: null,
  archived: false,
  archivedAt: null,
  createdAt: at,
  updatedAt: at,
};
const sampleMember: MemberRecord = { id: 'usr_sample', email: 'sample@example.com', name: 'Sample', role: 'member', joinedAt: at };
const sampleComment: CommentRecord = {
  id: 'cmt_sample',
  taskId: 'tsk_sample',
  authorId: 'usr_sample',
  content: 'Sample comment',
  mentions: [],
  createdAt: at,
  updatedAt: at,
};
const sampleFile: FileRecord = {
  id: 'fil_sample',
  projectId: 'prj_sample',
  name: 'sample.txt',
  size: 6,
  contentType: 'text/plain',
  uploaderId: 'usr_sample',
  createdAt: at,
};

/** Sample payloads for `POST /webhooks/{id}/test`. */
export const sampleEvents: Record<EventType, DomainEvent> = {
  'task.created': events.taskCreated(sampleTask),
  'task.updated': events.taskUpdated({ ...sampleTask, status: 'in_progress' }, { status: 'todo' }),
  'task.deleted': events.taskDeleted(sampleTask),
  'task.completed': events.taskCompleted({ ...sampleTask, status: 'done' }),
  'project.created': events.projectCreated(sampleProject),
  'project.updated': events.projectUpdated({ ...sampleProject, name: 'Renamed' }, { name: 'Sample project' }),
  'project.deleted': events.projectDeleted(sampleProject),
  'member.added': events.memberAdded(sampleMember),
  'member.removed': events.memberRemoved(sampleMember),
  'member.role_changed': events.memberRoleChanged({ ...sampleMember, role: 'admin' }, 'member'),
  'comment.created': events.commentCreated(sampleComment, sampleTask.projectId),
  'comment.updated': events.commentUpdated({ ...sampleComment, content: 'Edited' }, { content: 'Sample comment' }, sampleTask.projectId),
  'comment.deleted': events.commentDeleted(sampleComment, sampleTask.projectId),
  'file.uploaded': events.fileUploaded(sampleFile),
  'file.deleted': events.fileDeleted(sampleFile),
  'label.created': events.labelCreated(sampleLabel),
  'label.updated': events.labelUpdated({ ...sampleLabel, color: '#b60205' }, { color: '#d73a4a' }),
  'label.deleted': events.labelDeleted(sampleLabel),
  'relation.created': events.relationCreated(sampleRelation),
  'relation.deleted': events.relationDeleted(sampleRelation),
};

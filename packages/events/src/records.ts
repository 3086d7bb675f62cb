/** Resource records exactly as the API returns them; event `data` carries the same shapes. */

/**
 * Who caused an event (docs/decisions.md#history-actors-and-live-events): a user, through an API key
 * or (`apiKeyId` null) the dashboard, or the service itself.
 */
export type Actor = { type: 'user'; userId: string; apiKeyId: string | null } | { type: 'system' };

export const SYSTEM_ACTOR: Actor = { type: 'system' };

export interface TaskRecord {
  id: string;
  title: string;
  description: string | null;
  status: string;
  priority: string;
  projectId: string;
  assigneeId: string | null;
  creatorId: string;
  dueDate: string | null;
  customFields: Record<string, unknown>;
  labelIds: string[];
  parentId: string | null;
  subtasks: { total: number; done: number };
  createdAt: string;
  updatedAt: string;
}

export interface ProjectRecord {
  id: string;
  name: string;
  description: string | null;
  icon: string | null;
  color: string | null;
  archived: boolean;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MemberRecord {
  id: string;
  email: string;
  name: string | null;
  role: string;
  joinedAt: string;
}

export interface CommentRecord {
  id: string;
  taskId: string;
  authorId: string;
  content: string;
  mentions: string[];
  createdAt: string;
  updatedAt: string;
}

export interface FileRecord {
  id: string;
  projectId: string;
  name: string;
  size: number;
  contentType: string;
  uploaderId: string;
  createdAt: string;
}

export interface LabelRecord {
  id: string;
  name: string;
  color: string | null;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A relation as created (`taskId <type> relatedTaskId`), in events: with the project of its first task. */
export interface RelationEventRecord {
  id: string;
  type: string;
  taskId: string;
  relatedTaskId: string;
  projectId: string;
  createdAt: string;
}

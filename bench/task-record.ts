import { newId } from '@worktrack/db';

/** A task as the API serializes it: the data of the benchmarks' task.created events. */
export function taskRecord(projectId: string, creatorId: string) {
  const now = new Date().toISOString();
  return {
    id: newId('task'),
    title: 'Benchmark task',
    description: 'x'.repeat(200),
    status: 'todo',
    priority: 'high',
    projectId,
    assigneeId: null,
    creatorId,
    dueDate: null,
    customFields: {},
    createdAt: now,
    updatedAt: now,
  };
}

import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { previousAttributes } from '../changes';
import { projectRecordSchema, projectResource, toProjectRecord } from './project-record';
import { projectParams, updateProjectBody } from './project-schemas';

export const updateProject = defineRoute({
  operationId: 'updateProject',
  method: 'patch',
  path: '/projects/:projectId',
  summary: 'Update a project',
  description: '`archived: true` archives the project (no new tasks or files go into it), `archived: false` unarchives it; `archivedAt` follows.',
  tag: 'Projects',
  permission: 'projects:write',
  params: projectParams,
  body: updateProjectBody,
  locks: projectResource,
  etag: true,
  status: 200,
  response: projectRecordSchema,
  handler: ({ body, lock, commit }) =>
    commit(async (tx) => {
      const existing = await lock(tx);

      const archiving = body.archived !== undefined && body.archived !== existing.archived;
      const data = { ...body, ...(archiving && { archivedAt: body.archived ? new Date() : null }) };
      const before = toProjectRecord(existing);
      const changed = previousAttributes(before, toProjectRecord({ ...existing, ...data }));
      if (Object.keys(changed).length === 0) return { result: before, events: [] };

      const after = toProjectRecord(await tx.projects.update(existing.id, data));
      return { result: after, events: [events.projectUpdated(after, changed)] };
    }),
});

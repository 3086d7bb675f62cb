import { lockRow, scoped } from '@worktrack/db';
import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { notFound } from '../../http/errors';
import { defineRoute } from '../../http/route';
import { previousAttributes } from '../changes';
import { toProjectRecord } from './project-record';
import { projectParams, updateProjectBody } from './project-schemas';

export const updateProject = defineRoute({
  method: 'patch',
  path: '/projects/:projectId',
  permission: 'projects:write',
  params: projectParams,
  body: updateProjectBody,
  handler: ({ params, body, tenant, deps }) =>
    commitWithEvents(deps, tenant, async (tx) => {
      await lockRow(tx, 'Project', params.projectId);
      const existing = await tx.project.findFirst({ where: scoped(tenant, { id: params.projectId }) });
      if (!existing) throw notFound('projectId', 'No such project');

      const archiving = body.archived !== undefined && body.archived !== existing.archived;
      const data = { ...body, ...(archiving && { archivedAt: body.archived ? new Date() : null }) };
      const before = toProjectRecord(existing);
      const changed = previousAttributes(before, toProjectRecord({ ...existing, ...data }));
      if (Object.keys(changed).length === 0) return { result: before, events: [] };

      const after = toProjectRecord(await tx.project.update({ where: { id: existing.id }, data }));
      return { result: after, events: [events.projectUpdated(after, changed)] };
    }),
});

import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { projectRecordSchema, toProjectRecord } from './project-record';
import { createProjectBody } from './project-schemas';

export const createProject = defineRoute({
  operationId: 'createProject',
  method: 'post',
  path: '/projects',
  summary: 'Create a project',
  tag: 'Projects',
  permission: 'projects:write',
  body: createProjectBody,
  status: 201,
  response: projectRecordSchema,
  handler: ({ body, commit }) =>
    commit(async (tx) => {
      const project = await tx.projects.create({
        name: body.name,
        description: body.description ?? null,
        icon: body.icon ?? null,
        color: body.color ?? null,
      });
      const record = toProjectRecord(project);
      return { result: record, events: [events.projectCreated(record)] };
    }),
});

import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { projectResource, toProjectRecord } from './project-record';
import { projectParams } from './project-schemas';

/** A project's objects are removed in batches of 1,000 while the transaction waits. */
const STORE_DELETION_TIMEOUT_MS = 60_000;

/**
 * Deleting a project deletes its tasks (and their comments) and its files by foreign-key cascade.
 * The files' objects go first, with the project locked (so If-Match holds until the end): if the
 * store is down the call fails (503) and nothing is deleted.
 */
export const deleteProject = defineRoute({
  operationId: 'deleteProject',
  method: 'delete',
  path: '/projects/:projectId',
  summary: 'Delete a project',
  description: 'Also deletes its tasks, their comments, and its files with their stored objects. If the object store is unavailable (503), nothing is deleted.',
  tag: 'Projects',
  permission: 'projects:write',
  params: projectParams,
  locks: projectResource,
  status: 204,
  response: null,
  handler: async ({ deps, lock, commit }) =>
    commit(
      async (tx) => {
        const project = await lock(tx);
        await deps.store.deleteMany(await tx.projects.storageKeys(project.id));
        await tx.projects.remove(project.id);
        return { result: undefined, events: [events.projectDeleted(toProjectRecord(project))] };
      },
      { timeoutMs: STORE_DELETION_TIMEOUT_MS },
    ),
});

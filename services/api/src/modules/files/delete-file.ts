import { events } from '@worktrack/events';
import { defineRoute } from '../../http/route';
import { fileResource, toFileRecord } from './file-record';
import { fileParams } from './file-schemas';

/**
 * Removes the object first, with the row locked: if the store is down the call fails (503) and the
 * file stays whole.
 */
export const deleteFile = defineRoute({
  operationId: 'deleteFile',
  method: 'delete',
  path: '/files/:fileId',
  summary: 'Delete a file',
  description: 'Removes the stored object too. If the object store is unavailable (503), the file stays whole.',
  tag: 'Files',
  permission: 'files:write',
  params: fileParams,
  locks: fileResource,
  status: 204,
  response: null,
  handler: async ({ deps, lock, commit }) =>
    commit(async (tx) => {
      const file = await lock(tx);
      await deps.store.delete(file.storageKey);
      await tx.files.remove(file.id);
      return { result: undefined, events: [events.fileDeleted(toFileRecord(file))] };
    }),
});

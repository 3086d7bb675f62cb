import { events } from '@worktrack/events';
import { commitWithEvents } from '../../commit';
import { defineRoute } from '../../http/route';
import { findFile } from './find-file';
import { toFileRecord } from './file-record';
import { fileParams } from './file-schemas';

/** Removes the object first: if the store is down the call fails (503) and the file stays whole. */
export const deleteFile = defineRoute({
  method: 'delete',
  path: '/files/:fileId',
  permission: 'files:write',
  params: fileParams,
  handler: async ({ params, tenant, deps }) => {
    const file = await findFile(deps.db, tenant, params.fileId);
    await deps.store.delete(file.storageKey);
    return commitWithEvents(deps, tenant, async (tx) => {
      const { count } = await tx.file.deleteMany({ where: { id: file.id } });
      return { result: undefined, events: count === 1 ? [events.fileDeleted(toFileRecord(file))] : [] };
    });
  },
});

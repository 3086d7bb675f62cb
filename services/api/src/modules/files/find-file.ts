import { scoped, type Db, type File, type Scope, type Tx } from '@worktrack/db';
import { notFound } from '../../http/errors';

export async function findFile(db: Db | Tx, scope: Scope, fileId: string): Promise<File> {
  const file = await db.file.findFirst({ where: scoped(scope, { id: fileId }) });
  if (!file) throw notFound('fileId', 'No such file');
  return file;
}

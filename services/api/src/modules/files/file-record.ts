import type { File } from '@worktrack/db';
import type { FileRecord } from '@worktrack/events';

export function toFileRecord(file: File): FileRecord {
  return {
    id: file.id,
    projectId: file.projectId,
    name: file.name,
    size: file.size,
    contentType: file.contentType,
    uploaderId: file.uploaderId,
    createdAt: file.createdAt.toISOString(),
  };
}

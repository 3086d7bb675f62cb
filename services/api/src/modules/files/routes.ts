import { deleteFile } from './delete-file';
import { downloadFile } from './download-file';
import { getFile } from './get-file';
import { listFiles } from './list-files';
import { uploadFile } from './upload-file';

export const fileRoutes = [listFiles, uploadFile, getFile, downloadFile, deleteFile];

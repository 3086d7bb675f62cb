export { StorageUnavailableError } from './errors';
export { createObjectStore } from './create-object-store';
export type {
  ObjectStore,
  ObjectStoreOptions,
  PresignDownloadOptions,
  PresignedDownload,
} from './object-store';

export { StorageUnavailableError } from './errors';
export {
  createObjectStore,
  type ObjectStore,
  type ObjectStoreOptions,
  type PresignDownloadOptions,
  type PresignedDownload,
} from './object-store';

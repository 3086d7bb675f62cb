export { startEmbeddedS3, type EmbeddedS3, type EmbeddedS3Options } from './embedded-s3';
export { StorageUnavailableError } from './errors';
export {
  createObjectStore,
  type ObjectStore,
  type ObjectStoreOptions,
  type PresignDownloadOptions,
  type PresignedDownload,
} from './object-store';

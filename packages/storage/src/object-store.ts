import type { Readable } from 'node:stream';
import type { S3ClientSettings } from './s3-client';

export interface ObjectStoreOptions extends S3ClientSettings {
  /** Where downloaders reach the store, when it differs from `endpoint`; defaults to `endpoint`. */
  publicEndpoint?: string;
  bucket: string;
}

export interface PresignDownloadOptions {
  expiresInSeconds: number;
  /** Makes the download an attachment saved under this name. */
  fileName?: string;
  /** Overrides the stored Content-Type in the download response. */
  contentType?: string;
}

export interface PresignedDownload {
  url: string;
  expiresAt: Date;
}

/** One bucket of an S3-compatible store. Unreachable-store failures reject with StorageUnavailableError. */
export interface ObjectStore {
  /** Creates the bucket unless it exists. */
  ensureBucket(): Promise<void>;
  /** Streams `body` into the object a part at a time; resolves with the number of bytes stored. */
  upload(key: string, body: Readable, contentType: string): Promise<{ size: number }>;
  presignDownload(key: string, options: PresignDownloadOptions): Promise<PresignedDownload>;
  /** Deletes the object; a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes the objects in batches; missing objects are not an error. */
  deleteMany(keys: readonly string[]): Promise<void>;
  /** Resolves when the store answers and the bucket exists. */
  ping(): Promise<void>;
  close(): void;
}

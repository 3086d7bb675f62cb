import { S3Client } from '@aws-sdk/client-s3';

export interface S3ClientSettings {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

/**
 * An S3 client tuned for S3-compatible stores: it fails within seconds when the store is
 * unreachable instead of hanging a request, and sends checksums only where the API demands them.
 */
export function createS3Client(settings: S3ClientSettings): S3Client {
  return new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    // The default ("WHEN_SUPPORTED") frames streamed bodies as aws-chunked, which s3rver and
    // several S3-compatible stores save verbatim into the object.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 15_000, throwOnRequestTimeout: true },
  });
}

import S3rver from 's3rver';
import { DUMMY_ACCOUNT } from 's3rver/lib/models/account';

export interface EmbeddedS3Options {
  host?: string;
  /** 0 picks a free port; `endpoint` reports the real one. */
  port: number;
  /** Where objects are kept; they survive restarts. */
  directory: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}

export interface EmbeddedS3 {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  close(): Promise<void>;
}

/** The key pair s3rver accepts out of the box. */
const S3RVER_DEFAULT_KEY = 'S3RVER';

/** Runs an S3-compatible store in this process, for local use when no S3 endpoint is configured. */
export async function startEmbeddedS3({
  host = '127.0.0.1',
  port,
  directory,
  bucket,
  accessKeyId = S3RVER_DEFAULT_KEY,
  secretAccessKey = S3RVER_DEFAULT_KEY,
}: EmbeddedS3Options): Promise<EmbeddedS3> {
  // s3rver rejects access keys missing from its process-wide registry (it does not check signatures).
  DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  const server = new S3rver({
    address: host,
    port,
    directory,
    silent: true,
    // Otherwise any host name other than an IP or localhost is taken for a bucket name.
    vhostBuckets: false,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port: boundPort } = await server.run();
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    endpoint: `http://${urlHost}:${boundPort}`,
    accessKeyId,
    secretAccessKey,
    close: () => server.close(),
  };
}

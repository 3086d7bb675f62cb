/** s3rver's internal account registry (no public API or typings exist for it). */
declare module 's3rver/lib/models/account' {
  interface AWSAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
  }
  export const DUMMY_ACCOUNT: AWSAccount;
}

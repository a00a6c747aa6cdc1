/**
 * The S3 log store of the kubernetes backend (SVC_S3_BUCKET, SVC_S3_ENDPOINT, SVC_S3_REGION, SVC_S3_PREFIX;
 * credentials from the usual AWS_* variables), as the API server and the operator both open it. The
 * operator also hands its step Pods upload grants for their own keys (ADR 0014).
 */
import { S3Client } from '@aws-sdk/client-s3';
import { S3PodFiles } from '../adapters/launcher/pod/s3-files.js';
import { normalizePrefix } from '../adapters/logstore/s3-keys.js';
import { S3LogStore } from '../adapters/logstore/s3-log-store.js';
import { S3Objects } from '../adapters/logstore/s3-objects.js';
import { UploadGrants } from '../adapters/logstore/s3-upload-grant.js';
import type { Config } from '../config/config.js';
import type { EngineLogger } from '../core/ports/engine-ports.js';

export interface S3Logs {
  logs: S3LogStore;
  /** Where step Pods send their logs and results (the operator's). */
  podFiles(): S3PodFiles;
  close(): Promise<void>;
}

/** The bucket's URL for form uploads: path style under a custom endpoint, else AWS's virtual-hosted one. */
export function bucketUrl(bucket: string, region: string, endpoint?: string): string {
  return endpoint ? `${endpoint.replace(/\/+$/, '')}/${bucket}` : `https://${bucket}.s3.${region}.amazonaws.com`;
}

/** Undefined without SVC_S3_BUCKET: the logs are files on the shared volume then. */
export function s3Logs(config: Pick<Config, 'systemEnv'>, log: EngineLogger): S3Logs | undefined {
  const env = config.systemEnv;
  const bucket = env.SVC_S3_BUCKET;
  if (!bucket) return undefined;
  const endpoint = env.SVC_S3_ENDPOINT;
  const region = env.SVC_S3_REGION ?? 'us-east-1';
  const prefix = env.SVC_S3_PREFIX ?? 'svc';
  const client = new S3Client({ region, ...(endpoint ? { endpoint, forcePathStyle: true } : {}) });
  const logs = new S3LogStore({
    client, bucket, prefix,
    onError: (e) => log.warn('Failed writing a log chunk; it is retried', { error: e instanceof Error ? e.message : String(e) }),
  });
  return {
    logs,
    podFiles: () => new S3PodFiles({
      logs, objects: new S3Objects(client, bucket), prefix: normalizePrefix(prefix),
      grants: new UploadGrants({ client, bucket, region, url: bucketUrl(bucket, region, endpoint) }),
    }),
    close: async () => {
      await logs.close();
      client.destroy();
    },
  };
}

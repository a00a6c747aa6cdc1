/**
 * A TestServer on the kubernetes backend (what the api-kube project sets for every server), with its
 * operator unless `SVC_TEST_OPERATOR: 'off'`; and what the operator's tests do with it.
 */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { eventually, TestServer } from '../helpers/server.js';
import { startMinio, type MinioServer } from '../helpers/minio.js';
import { kubectl } from '../testbed/helpers.js';

export function kubeServer(env: Record<string, string> = {}): TestServer {
  const before = process.env.SVC_TEST_BACKEND;
  process.env.SVC_TEST_BACKEND = 'kubernetes';
  try {
    return new TestServer(env);
  } finally {
    if (before === undefined) delete process.env.SVC_TEST_BACKEND;
    else process.env.SVC_TEST_BACKEND = before;
  }
}

/** The run once it has ended (failed, aborted, succeeded, partially succeeded). */
export async function finished(srv: TestServer, dag: string, id: string, timeoutMs = 60_000): Promise<any> {
  return eventually(async () => {
    const r = (await srv.get(`/dag-runs/${dag}/${id}`)).body.dagRun;
    return r && [2, 3, 4, 6].includes(r.status) ? r : undefined;
  }, `${dag}/${id} to finish`, timeoutMs);
}

/** Starts a run of the DAG over REST; its run id. */
export async function start(srv: TestServer, dag: string, body: object = {}): Promise<string> {
  const r = await srv.post(`/dags/${dag}/start`, body);
  expect(r.status).toBe(200);
  return r.body.dagRunId as string;
}

export interface PodJson { metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string; ownerReferences?: object[] }; spec: any; status?: any }

/** The namespace's Pods matching a label selector (default: step Pods). */
export async function podsOf(ns: string, selector = 'svc.io/component=step'): Promise<PodJson[]> {
  const r = await kubectl(['get', 'pods', '-n', ns, '-l', selector, '-o', 'json']);
  return JSON.parse(r.stdout).items;
}

/**
 * MinIO with one bucket, and a kubeServer keeping step logs there (SVC_S3_BUCKET): the API server and the
 * operator (this process) read the bucket's credentials from AWS_*, which stop() puts back as they were.
 */
/** The commands a step Pod's entry runs: its environment's SVC_COMMANDS, never the container's args (ADR 0028). */
export function entryCommands(pod: PodJson): string {
  const container = pod.spec.containers[0];
  expect(container.command.slice(-2)).toEqual(['--commands-env', 'SVC_COMMANDS']);
  return container.env.find((e: { name: string }) => e.name === 'SVC_COMMANDS').value;
}

export class BucketServer {
  minio!: MinioServer;
  client!: S3Client;
  srv!: TestServer;
  private readonly saved = { id: process.env.AWS_ACCESS_KEY_ID, key: process.env.AWS_SECRET_ACCESS_KEY };

  constructor(readonly bucket: string, private readonly env: Record<string, string> = {}) {}

  async start(): Promise<void> {
    this.minio = await startMinio();
    await this.minio.createBucket(this.bucket);
    this.client = this.minio.client();
    process.env.AWS_ACCESS_KEY_ID = this.minio.credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = this.minio.credentials.secretAccessKey;
    this.srv = kubeServer({ SVC_S3_BUCKET: this.bucket, SVC_S3_ENDPOINT: this.minio.endpoint, ...this.env });
    await this.srv.start();
  }

  /** The keys of the bucket under `prefix`. */
  async keys(prefix: string): Promise<string[]> {
    return ((await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);
  }

  async stop(): Promise<void> {
    await this.srv?.stop();
    this.client?.destroy();
    await this.minio?.stop();
    for (const [k, v] of [['AWS_ACCESS_KEY_ID', this.saved.id], ['AWS_SECRET_ACCESS_KEY', this.saved.key]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/**
 * A real S3-compatible server for tests: MinIO, as built by hack/minio.sh (or the binary SVC_MINIO_BIN
 * names), started on 127.0.0.1 on a free port with a temp data directory and throwaway root
 * credentials, and stopped (its directory removed) by stop(). Nothing listens beyond loopback.
 */
import { builtServer, describeWith, freePort, stopProcess } from './needs.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

const server = builtServer('MinIO', 'minio.sh', 'SVC_MINIO_BIN');

/** The MinIO binary: SVC_MINIO_BIN, else the one hack/minio.sh cached; undefined when neither exists. */
export const minioBinary = server.binary;

/** Why MinIO tests cannot run here, or undefined. */
export const minioSkipReason = server.skipReason;

/** describe() for tests that need MinIO. Without it: under CI=true the suite fails; elsewhere it is skipped loudly. */
export function describeMinio(name: string, fn: () => void): void {
  describeWith('MinIO', minioSkipReason(), name, fn);
}

export interface MinioServer {
  endpoint: string;
  /** The root credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY for processes that use the server). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** A new client of the server (each one its own connections, like another process's). */
  client(): S3Client;
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
}


const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves once the server answers its readiness probe; rejects when it exits first or takes too long. */
async function ready(proc: ChildProcess, endpoint: string, stderr: () => string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`MinIO exited (${proc.exitCode ?? proc.signalCode}): ${stderr().slice(-2000)}`);
    const ok = await fetch(`${endpoint}/minio/health/ready`).then((r) => r.ok, () => false);
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`MinIO did not answer at ${endpoint} within ${timeoutMs} ms: ${stderr().slice(-2000)}`);
}


async function startOnce(bin: string, dir: string): Promise<MinioServer> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: `test-${randomBytes(4).toString('hex')}`, secretAccessKey: randomBytes(18).toString('base64url') };
  // --quiet: no start-up banner (it prints the root credentials). No console (MINIO_BROWSER=off), no update check.
  const proc = spawn(bin, ['server', join(dir, 'data'), '--address', `127.0.0.1:${port}`, '--certs-dir', join(dir, 'certs'), '--quiet'], {
    env: {
      PATH: process.env.PATH, HOME: dir, MINIO_ROOT_USER: credentials.accessKeyId, MINIO_ROOT_PASSWORD: credentials.secretAccessKey,
      MINIO_BROWSER: 'off', MINIO_UPDATE: 'off',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-8000); });
  try {
    await ready(proc, endpoint, () => stderr);
  } catch (e) {
    await stopProcess(proc);
    throw e;
  }
  const client = (): S3Client => new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  return {
    endpoint,
    credentials,
    client,
    async createBucket(name) {
      const c = client();
      await c.send(new CreateBucketCommand({ Bucket: name }));
      c.destroy();
    },
    stop: () => stopProcess(proc),
  };
}

/** Starts MinIO (a second try on another port if the first one was taken meanwhile). */
export async function startMinio(): Promise<MinioServer> {
  const bin = minioBinary();
  if (bin === undefined) throw new Error(minioSkipReason());
  const dir = mkdtempSync(join(tmpdir(), 'svc-minio-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  for (let attempt = 1; ; attempt++) {
    try {
      const server = await startOnce(bin, dir);
      return { ...server, stop: async () => { await server.stop(); cleanup(); } };
    } catch (e) {
      if (attempt >= 2) {
        cleanup();
        throw e;
      }
    }
  }
}

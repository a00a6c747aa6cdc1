/**
 * An ioredis client for a step's connection: standalone, through sentinels, or a cluster. A step is
 * short-lived, so the client never reconnects or retries on its own (a lost connection fails the step
 * and the step's retryPolicy decides), speaks RESP2 (replies are strings, integers, nil and lists), and
 * gives up connecting after connectTimeout. Errors say where it tried and why, never with a password.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { StepError } from '../runner.js';
import type { Connection, Endpoint } from './plan.js';

export type Client = Redis | Cluster;

export interface Connected {
  client: Client;
  /** The last error ioredis reported on its own (the cause behind "Connection is closed."). */
  lastError(): Error | undefined;
  /** Disconnects, once: a second disconnect of ioredis would hold the process for its disconnect timeout. */
  close(): void;
}

const addr = (e: Endpoint): string => (e.host.includes(':') ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`);

/** Where the client connects, for messages. */
export function describeTarget(c: Connection): string {
  if (c.mode === 'sentinel') return `master "${c.sentinelMaster ?? ''}" via sentinels ${c.sentinels.map(addr).join(', ')}`;
  if (c.mode === 'cluster') return `cluster ${c.clusterNodes.map(addr).join(', ')}`;
  return addr(c.endpoint);
}

function tlsOptions(c: Connection, workingDir: string): ConnectionOptions | undefined {
  if (!c.tls) return undefined;
  let ca: string | undefined;
  if (c.tls.caFile) {
    try {
      ca = readFileSync(resolve(workingDir, c.tls.caFile), 'utf8');
    } catch (e) {
      throw new StepError(`redis step: config.tlsCa: cannot read ${c.tls.caFile}: ${(e as Error).message}`);
    }
  }
  return { ...(ca !== undefined ? { ca } : {}), ...(c.tls.skipVerify ? { rejectUnauthorized: false } : {}) };
}

function baseOptions(c: Connection, workingDir: string, connectTimeoutMs: number): RedisOptions {
  const tls = tlsOptions(c, workingDir);
  return {
    lazyConnect: true,
    protocol: 2,
    connectTimeout: connectTimeoutMs,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    autoResubscribe: false,
    db: c.db,
    ...(c.username !== undefined ? { username: c.username } : {}),
    ...(c.password !== undefined ? { password: c.password } : {}),
    ...(tls ? { tls } : {}),
  };
}

/** A client, not yet connected. */
export function createClient(c: Connection, workingDir: string, connectTimeoutMs: number): Client {
  const base = baseOptions(c, workingDir, connectTimeoutMs);
  if (c.mode === 'sentinel') {
    return new Redis({
      ...base, name: c.sentinelMaster!, sentinels: c.sentinels.map((s) => ({ host: s.host, port: s.port })),
      sentinelRetryStrategy: () => null, sentinelCommandTimeout: connectTimeoutMs,
    });
  }
  if (c.mode === 'cluster') {
    const { db: _db, lazyConnect: _lazy, ...redisOptions } = base;
    const options: ClusterOptions = {
      lazyConnect: true, clusterRetryStrategy: () => null, slotsRefreshTimeout: connectTimeoutMs,
      retryDelayOnClusterDown: 0, retryDelayOnTryAgain: 0, maxRedirections: 16, redisOptions,
    };
    return new Cluster(c.clusterNodes.map((n) => ({ host: n.host, port: n.port })), options);
  }
  return new Redis({ ...base, host: c.endpoint.host, port: c.endpoint.port });
}

/** The most telling message of a failure: ioredis' own error event explains "Connection is closed.". */
export function causeOf(e: unknown, last: Error | undefined): string {
  const err = e instanceof Error ? e : new Error(String(e));
  const generic = /Connection is closed|None of startup nodes is available|Failed to refresh slots cache/.test(err.message);
  const cause = generic && last ? last : err;
  const node = (cause as { lastNodeError?: Error }).lastNodeError;
  return node && !cause.message.includes(node.message) ? `${cause.message} (${node.message})` : cause.message;
}

/** A connection failure as a sentence: what was tried and what went wrong. */
export function connectError(c: Connection, cause: string): StepError {
  const where = describeTarget(c);
  if (/No such master/i.test(cause)) return new StepError(`redis step: the sentinels (${c.sentinels.map(addr).join(', ')}) know no master named "${c.sentinelMaster ?? ''}": ${cause}`);
  if (/WRONGPASS|invalid password|invalid username-password/i.test(cause)) return new StepError(`redis step: authentication failed at ${where} (config.username, config.password): ${cause}`);
  if (/NOAUTH/.test(cause)) return new StepError(`redis step: ${where} requires a password (config.password): ${cause}`);
  return new StepError(`redis step: cannot connect to ${where}: ${cause}`);
}

/** A client not yet connected, remembering the errors ioredis reports on its own. */
export function prepare(c: Connection, workingDir: string, connectTimeoutMs: number): Connected {
  const client = createClient(c, workingDir, connectTimeoutMs);
  let last: Error | undefined;
  client.on('error', (e: Error) => { last = e; });
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    if (client.status !== 'end') client.disconnect();
  };
  return { client, lastError: () => last, close };
}

/** Connects, or throws a connectError (the caller disconnects the client either way). */
export async function open(conn: Connected, c: Connection): Promise<void> {
  try {
    await conn.client.connect();
    // A cluster reports connected before its slots are known; a cheap command proves it answers.
    if (c.mode === 'cluster') await conn.client.call('PING');
  } catch (e) {
    throw connectError(c, causeOf(e, conn.lastError()));
  }
}

/**
 * Real Redis servers for tests, from Debian's redis-server (or the binary SVC_REDIS_SERVER names): a
 * standalone server (optionally with a password, ACL users or TLS), a sentinel setup (a master, a
 * replica and sentinels) and a small cluster of three masters. All listen on 127.0.0.1 on free ports,
 * keep their files in a temp directory, persist nothing, and are stopped (directory removed) by stop().
 */
import { describeWith, freePort, stopProcess } from './needs.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export function redisServerBinary(): string {
  return process.env.SVC_REDIS_SERVER ?? '/usr/bin/redis-server';
}

/** Why Redis tests cannot run here, or undefined. */
export function redisSkipReason(): string | undefined {
  const bin = redisServerBinary();
  return existsSync(bin) ? undefined : `no redis-server at ${bin}: install the Debian package redis-server (or set SVC_REDIS_SERVER)`;
}

/** describe() for tests that need redis-server. Without it: under CI=true the suite fails; elsewhere it is skipped loudly. */
export function describeRedis(name: string, fn: () => void): void {
  describeWith('redis-server', redisSkipReason(), name, fn);
}


const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface RedisNode {
  host: string;
  port: number;
  /** A client of this node (the admin password when the node has one); disconnected by stop(). */
  client(): Redis;
  stop(): Promise<void>;
}

export interface NodeOptions {
  /** requirepass: the default user's password. */
  password?: string;
  /** ACL rules, one user each, e.g. `deployer on >pw ~* +@all`. */
  users?: string[];
  /** TLS only (no plain port): paths of the server's certificate, its key and the CA that signed it. */
  tls?: { cert: string; key: string; ca: string };
  /** More redis-server arguments (`--replicaof`, `--cluster-enabled` ...). */
  args?: string[];
  /** Start a sentinel with this config file instead of a server. */
  sentinelConf?: string;
}


function serverArgs(port: number, dir: string, o: NodeOptions): string[] {
  const base = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', ''];
  const listen = o.tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', o.tls.cert, '--tls-key-file', o.tls.key, '--tls-ca-cert-file', o.tls.ca, '--tls-auth-clients', 'no']
    : ['--port', String(port)];
  const auth = [...(o.password ? ['--requirepass', o.password] : []), ...(o.users ?? []).flatMap((u) => ['--user', ...u.split(' ')])];
  return [...listen, ...base, ...auth, ...(o.args ?? [])];
}

/** Polls PING until the node answers; rejects when the process exits first or it takes too long. */
async function ready(proc: ChildProcess, connect: () => Redis, log: () => string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`redis-server exited (${proc.exitCode ?? proc.signalCode}): ${log().slice(-2000)}`);
    const c = connect();
    const ok = await c.connect().then(() => c.ping()).then(() => true, () => false);
    c.disconnect();
    if (ok) return;
    await sleep(30);
  }
  throw new Error(`redis-server did not answer within ${timeoutMs} ms: ${log().slice(-2000)}`);
}

/** Starts one redis-server (or sentinel) on a free port in its own temp directory. */
export async function startRedis(o: NodeOptions = {}, port?: number): Promise<RedisNode> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-redis-'));
  const p = port ?? await freePort();
  const args = o.sentinelConf ? [o.sentinelConf, '--sentinel', '--port', String(p)] : serverArgs(p, dir, o);
  const proc = spawn(redisServerBinary(), args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d: Buffer): void => { log = (log + d.toString()).slice(-8000); };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const clients: Redis[] = [];
  const client = (): Redis => {
    const c = new Redis({
      host: '127.0.0.1', port: p, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0,
      ...(o.password ? { password: o.password } : {}),
      ...(o.tls ? { tls: { ca: readFileSync(o.tls.ca, 'utf8') } } : {}),
    });
    c.on('error', () => undefined);
    clients.push(c);
    return c;
  };
  const stop = async (): Promise<void> => {
    for (const c of clients) if (c.status !== 'end') c.disconnect();
    await stopProcess(proc);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await ready(proc, client, () => log);
  } catch (e) {
    await stop();
    throw e;
  }
  return { host: '127.0.0.1', port: p, client: () => connected(client()), stop };
}

/** A lazily connecting client that connects on its first command (lazyConnect queues commands until then). */
function connected(c: Redis): Redis {
  void c.connect().catch(() => undefined);
  return c;
}

export interface SentinelSetup {
  masterName: string;
  master: RedisNode;
  replica: RedisNode;
  sentinels: RedisNode[];
  /** `127.0.0.1:<port>` of each sentinel. */
  sentinelAddrs: string[];
  stop(): Promise<void>;
}

/** A master, one replica of it and `count` sentinels monitoring it (quorum 1) as `masterName`. */
export async function startSentinels(masterName = 'mymaster', count = 1): Promise<SentinelSetup> {
  const master = await startRedis();
  const started: RedisNode[] = [master];
  try {
    const replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(master.port)] });
    started.push(replica);
    const sentinels: RedisNode[] = [];
    for (let i = 0; i < count; i++) {
      const confDir = mkdtempSync(join(tmpdir(), 'svc-sentinel-'));
      const conf = join(confDir, 'sentinel.conf');
      // The sentinel rewrites its config file (known replicas, epochs): it must be writable and its own.
      writeFileSync(conf, [
        'bind 127.0.0.1', `dir ${confDir}`, 'logfile ""',
        `sentinel monitor ${masterName} 127.0.0.1 ${master.port} 1`,
        `sentinel down-after-milliseconds ${masterName} 5000`, '',
      ].join('\n'));
      const s = await startRedis({ sentinelConf: conf });
      sentinels.push({ ...s, stop: async () => { await s.stop(); rmSync(confDir, { recursive: true, force: true }); } });
      started.push(sentinels[sentinels.length - 1]!);
    }
    await waitFor(async () => {
      const c = sentinels[0]!.client();
      const addr = await c.call('SENTINEL', 'get-master-addr-by-name', masterName).catch(() => null);
      c.disconnect();
      return Array.isArray(addr) && addr[1] === String(master.port);
    }, 'the sentinel to know its master');
    return {
      masterName, master, replica, sentinels,
      sentinelAddrs: sentinels.map((s) => `127.0.0.1:${s.port}`),
      stop: () => stopAll(started),
    };
  } catch (e) {
    await stopAll(started);
    throw e;
  }
}

export interface RedisCluster {
  nodes: RedisNode[];
  /** `127.0.0.1:<port>` of each node. */
  addrs: string[];
  stop(): Promise<void>;
}

/**
 * A cluster of `size` masters (no replicas): each node gets an equal range of the 16384 slots and a
 * distinct config epoch, then the first one MEETs the others; resolves once every node reports
 * cluster_state:ok. The bus ports are free ports of their own (cluster-port), not port+10000.
 */
export async function startCluster(size = 3): Promise<RedisCluster> {
  const nodes: RedisNode[] = [];
  try {
    const buses: number[] = [];
    for (let i = 0; i < size; i++) {
      const bus = await freePort();
      buses.push(bus);
      const dir = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
      const node = await startRedis({ args: ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf'), '--cluster-port', String(bus), '--cluster-node-timeout', '2000'] });
      nodes.push({ ...node, stop: async () => { await node.stop(); rmSync(dir, { recursive: true, force: true }); } });
    }
    await assignSlots(nodes, buses);
    await waitFor(async () => (await Promise.all(nodes.map(clusterOk))).every(Boolean), 'cluster_state:ok on every node');
    return { nodes, addrs: nodes.map((n) => `127.0.0.1:${n.port}`), stop: () => stopAll(nodes) };
  } catch (e) {
    await stopAll(nodes);
    throw e;
  }
}

async function assignSlots(nodes: RedisNode[], buses: number[]): Promise<void> {
  const per = Math.ceil(16384 / nodes.length);
  for (const [i, n] of nodes.entries()) {
    const c = n.client();
    await c.call('CLUSTER', 'ADDSLOTSRANGE', String(i * per), String(Math.min(16383, (i + 1) * per - 1)));
    await c.call('CLUSTER', 'SET-CONFIG-EPOCH', String(i + 1));
    c.disconnect();
  }
  const first = nodes[0]!.client();
  for (const [i, n] of nodes.entries()) if (i > 0) await first.call('CLUSTER', 'MEET', '127.0.0.1', String(n.port), String(buses[i]));
  first.disconnect();
}

async function clusterOk(n: RedisNode): Promise<boolean> {
  const c = n.client();
  const info = await c.call('CLUSTER', 'INFO').catch(() => '');
  c.disconnect();
  return typeof info === 'string' && info.includes('cluster_state:ok');
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function stopAll(nodes: RedisNode[]): Promise<void> {
  await Promise.all(nodes.map((n) => n.stop()));
}


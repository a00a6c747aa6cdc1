/**
 * The redis step type through the real embedded engine, against real Redis servers on loopback
 * (test/helpers/redis.ts): a plain server, one with a password and an ACL user, one speaking TLS only,
 * a sentinel setup and a three-master cluster, all started once for this file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runRedis } from '../../src/runtime/steps/redis/index.js';
import { freePort } from '../helpers/needs.js';
import { describeRedis, startCluster, startRedis, startSentinels, type RedisCluster, type RedisNode, type SentinelSetup } from '../helpers/redis.js';
import { runSteps, type StepsOptions } from '../helpers/steps.js';

const runners = { redis: runRedis };
const run = (yaml: string, o: StepsOptions = {}) => runSteps(yaml, { runners, ...o });
const PASSWORD = 'pw-a1b2c3-very-secret';

function certificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-redis-tls-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { cert, key };
}

describeRedis('redis steps', () => {
  let plain: RedisNode;
  let secured: RedisNode;
  let tlsNode: RedisNode;
  let sentinel: SentinelSetup;
  let cluster: RedisCluster;
  let ca = '';
  let silent: Server;
  let silentPort = 0;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    const tls = certificate();
    ca = tls.cert;
    silent = createServer((s) => { sockets.push(s); });
    silentPort = await new Promise<number>((r) => silent.listen(0, '127.0.0.1', () => r((silent.address() as { port: number }).port)));
    [plain, secured, tlsNode, sentinel, cluster] = await Promise.all([
      startRedis(),
      startRedis({ password: PASSWORD, users: [`deployer on >${PASSWORD} ~deploy:* +@all`] }),
      startRedis({ tls: { ...tls, ca: tls.cert } }),
      startSentinels('mymaster'),
      startCluster(3),
    ]);
  }, 60_000);

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    silent?.close();
    await Promise.all([plain, secured, tlsNode, sentinel, cluster].filter(Boolean).map((n) => n.stop()));
  });

  const at = (n: RedisNode): string => `redis:\n  host: 127.0.0.1\n  port: ${n.port}\n`;

  test('commands with the DAG-level block, step fields over it; JSON replies captured for later steps', async () => {
    const r = await run(`
type: graph
${at(plain)}
steps:
  - name: set
    type: redis
    config: { command: SET, key: greeting, value: hello, ttl: 300 }
  - name: get
    depends: [set]
    type: redis
    config: { command: GET, key: greeting }
    output: GREETING
  - name: missing
    type: redis
    config: { command: GET, key: no-such-key }
    output: MISSING
  - name: hash
    type: redis
    config: { command: HSET, key: "user:1", args: [name, Ada, "2", two] }
  - name: profile
    depends: [hash]
    type: redis
    config: { command: HGETALL, key: "user:1" }
    output: PROFILE
  - name: push
    type: redis
    config: { command: RPUSH, key: queue, values: [a, b, c] }
    output: PUSHED
  - name: db1
    type: redis
    config: { command: SET, key: in-db1, value: yes, db: 1 }
  - name: inline
    type: redis
    command: SET "spaced key" "a b"
  - name: show
    depends: [get, profile, push]
    command: echo "\${GREETING} \${PROFILE.name} \${PUSHED}"
    output: SHOW
`);
    expect(r.status).toBe('succeeded');
    expect(await r.outputs()).toMatchObject({ greeting: '"hello"', missing: 'null', pushed: '3', show: '"hello" Ada 3' });
    expect(await r.log('profile')).toBe('{\n  "name": "Ada",\n  "2": "two"\n}\n');
    const c = plain.client();
    expect(await c.ttl('greeting')).toBeGreaterThan(290);
    expect(await c.get('in-db1')).toBeNull();
    expect(await c.get('spaced key')).toBe('a b');
    await c.select(1);
    expect(await c.get('in-db1')).toBe('yes');
  });

  test('output formats: json, jsonl, raw and csv of a map, a list, nil and a pipeline', async () => {
    const c = plain.client();
    await c.del('fmt:h', 'fmt:l');
    await c.hset('fmt:h', 'name', 'Ada', 'note', 'a,"b"');
    await c.rpush('fmt:l', 'x', 'y');
    const steps = ['json', 'jsonl', 'raw', 'csv'].map((f) => `
  - name: h-${f}
    type: redis
    config: { command: HGETALL, key: "fmt:h", outputFormat: ${f} }
  - name: l-${f}
    type: redis
    config: { command: LRANGE, key: "fmt:l", format: ${f} }
  - name: nil-${f}
    type: redis
    config: { command: GET, key: "fmt:none", format: ${f}, nullValue: "(nil)" }
  - name: p-${f}
    type: redis
    config:
      format: ${f}
      pipeline:
        - { command: LLEN, key: "fmt:l" }
        - { command: LRANGE, key: "fmt:l" }
        - { command: GET, key: "fmt:none" }`).join('');
    const r = await run(`type: graph\n${at(plain)}steps:${steps}\n`);
    expect(r.status).toBe('succeeded');
    const logs = Object.fromEntries(await Promise.all(r.run.status.run.nodes.map(async (n) => [n.name, await r.log(n.name)] as const)));
    expect(logs).toEqual({
      'h-json': '{\n  "name": "Ada",\n  "note": "a,\\"b\\""\n}\n',
      'l-json': '[\n  "x",\n  "y"\n]\n',
      'nil-json': 'null\n',
      'p-json': '[\n  2,\n  [\n    "x",\n    "y"\n  ],\n  null\n]\n',
      'h-jsonl': '{"name":"Ada"}\n{"note":"a,\\"b\\""}\n',
      'l-jsonl': '"x"\n"y"\n',
      'nil-jsonl': 'null\n',
      'p-jsonl': '2\n["x","y"]\nnull\n',
      'h-raw': 'name: Ada\nnote: a,"b"\n',
      'l-raw': 'x\ny\n',
      'nil-raw': '(nil)\n',
      'p-raw': '2\nx\ny\nnull\n',
      'h-csv': 'name,Ada\nnote,"a,""b"""\n',
      'l-csv': 'x,y\n',
      'nil-csv': '(nil)\n',
      'p-csv': '2,"[""x"",""y""]",null\n',
    });
  });

  test('a pipeline runs every command; a failing one fails the step after all results are printed', async () => {
    const r = await run(`
${at(plain)}
steps:
  - name: pipe
    type: redis
    config:
      pipeline:
        - { command: SET, key: "p:s", value: text }
        - { command: LPUSH, key: "p:s", value: x }
        - { command: SET, key: "p:after", value: ran }
`);
    expect(r.status).toBe('failed');
    expect(r.node('pipe').error).toBe('redis step: 1 of the pipeline\'s commands failed: command 2 (LPUSH): WRONGTYPE Operation against a key holding the wrong kind of value');
    expect(await r.log('pipe')).toBe('[\n  "OK",\n  {\n    "error": "WRONGTYPE Operation against a key holding the wrong kind of value"\n  },\n  "OK"\n]\n');
    expect(await plain.client().get('p:after')).toBe('ran');
  });

  test('transactions: MULTI/EXEC results; a refused command discards all; watch', async () => {
    const r = await run(`
type: graph
${at(plain)}
steps:
  - name: tx
    type: redis
    config:
      multi: true
      pipeline:
        - { command: SET, key: "tx:a", value: 100 }
        - { command: DECRBY, key: "tx:a", value: 30 }
        - { command: INCRBY, key: "tx:b", value: 30 }
      outputFormat: jsonl
  - name: refused
    type: redis
    config:
      multi: true
      pipeline:
        - { command: SET, key: "tx:never", value: 1 }
        - { command: NOSUCHCOMMAND, key: x }
  - name: watched
    type: redis
    config:
      watch: ["tx:w"]
      pipeline:
        - { command: INCR, key: "tx:w" }
`);
    expect(r.node('tx').status).toBe(4);
    expect(await r.log('tx')).toBe('"OK"\n70\n30\n');
    expect(r.node('refused').error).toMatch(/^redis step: the transaction was discarded, nothing ran: EXECABORT .*unknown command 'NOSUCHCOMMAND'/);
    expect(await plain.client().exists('tx:never')).toBe(0);
    expect(await r.log('watched')).toBe('[\n  1\n]\n');
  });

  test('Lua scripts: inline with keys and args, the step script, a file, a loaded SHA1, errors', async () => {
    const c = plain.client();
    const sha = (await c.script('LOAD', "return 'loaded:' .. ARGV[1]")) as string;
    const r = await run(`
type: graph
${at(plain)}
steps:
  - name: inline
    type: redis
    config:
      script: "redis.call('SET', KEYS[1], ARGV[1]); return {redis.call('GET', KEYS[1]), tonumber(ARGV[2]) * 2, false}"
      scriptKeys: ["lua:k"]
      scriptArgs: [v1, 21]
  - name: step-script
    type: redis
    script: |
      return redis.call('INCRBY', KEYS[1], ARGV[1])
    config: { keys: ["lua:n"], args: [5], format: raw }
  - name: file
    type: redis
    config: { scriptFile: echo.lua, args: [from-file], format: raw }
  - name: sha
    type: redis
    config: { scriptSha: ${sha}, args: [x], format: raw }
  - name: unknown-sha
    type: redis
    config: { scriptSha: "0000000000000000000000000000000000000000" }
  - name: lua-error
    type: redis
    config: { script: "return redis.call('NOSUCH')" }
`, { files: { 'echo.lua': "return 'file:' .. ARGV[1]" } });
    expect(await r.log('inline')).toBe('[\n  "v1",\n  42,\n  null\n]\n');
    expect(await r.log('step-script')).toBe('5\n');
    expect(await r.log('file')).toBe('file:from-file\n');
    expect(await r.log('sha')).toBe('loaded:x\n');
    expect(r.node('unknown-sha').error).toContain('no script with SHA1 0000000000000000000000000000000000000000 is loaded');
    expect(r.node('lua-error').error).toMatch(/^redis step: EVAL failed: ERR Unknown Redis command called from script/);
  });

  test('KEYS and SCAN with a pattern', async () => {
    const c = plain.client();
    await c.mset('scan:1', 'a', 'scan:2', 'b', 'other', 'c');
    const r = await run(`
type: graph
${at(plain)}
steps:
  - name: keys
    type: redis
    config: { command: KEYS, match: "scan:*", format: raw }
  - name: scan
    type: redis
    config: { command: SCAN, match: "scan:*", count: 1, format: raw }
`);
    expect((await r.log('keys')).split('\n').filter(Boolean).sort()).toEqual(['scan:1', 'scan:2']);
    expect((await r.log('scan')).split('\n').filter(Boolean).sort()).toEqual(['scan:1', 'scan:2']);
  });

  test('a lock is held during the action and released after; a held lock makes the step wait, then fail', async () => {
    const c = plain.client();
    await c.set('svc:lock:busy', 'someone-else', 'PX', 60_000);
    await c.set('svc:lock:soon', 'someone-else', 'PX', 400);
    const r = await run(`
type: graph
${at(plain)}
steps:
  - name: holds
    type: redis
    config:
      script: "return redis.call('PTTL', KEYS[1]) > 0 and string.len(redis.call('GET', KEYS[1])) == 36"
      keys: ["svc:lock:nightly"]
      lock: nightly
      lockTimeout: 5
  - name: busy
    type: redis
    config: { command: PING, lock: busy, lockRetry: 3, lockWait: 50 }
  - name: waits
    type: redis
    config: { command: PING, lock: soon, lockRetry: 40, lockWait: 50 }
`);
    expect(await r.log('holds')).toBe('1\n');
    expect(await c.exists('svc:lock:nightly')).toBe(0);
    expect(r.node('busy').error).toBe('redis step: lock "busy" (key svc:lock:busy) is held by another holder: gave up after 3 attempts 50 ms apart (config.lockRetry, config.lockWait)');
    expect(r.node('waits').status).toBe(4);
    expect(await c.get('svc:lock:busy')).toBe('someone-else');
    expect(await c.exists('svc:lock:soon')).toBe(0);
  });

  test('retryPolicy retries a failed step: the lock frees up between attempts', async () => {
    await plain.client().set('svc:lock:retry', 'someone-else', 'PX', 700);
    const r = await run(`
${at(plain)}
steps:
  - name: retried
    type: redis
    config: { command: INCR, key: retried, lock: retry, lockRetry: 1 }
    retryPolicy: { limit: 3, intervalSec: 1 }
`);
    expect(r.status).toBe('succeeded');
    expect(r.node('retried').retryCount).toBeGreaterThanOrEqual(1);
    expect(await plain.client().get('retried')).toBe('1');
  });

  test('a password from a secret and an ACL user; auth failures are clear errors; the secret is masked', async () => {
    const r = await run(`
type: graph
secrets:
  - name: REDIS_PASSWORD
    provider: env
    key: SVC_TEST_REDIS_PASSWORD
redis:
  host: 127.0.0.1
  port: ${secured.port}
  password: \${REDIS_PASSWORD}
steps:
  - name: echo
    type: redis
    config: { command: ECHO, value: "pw=\${REDIS_PASSWORD}" }
    output: ECHOED
  - name: acl-user
    type: redis
    config: { command: SET, key: "deploy:v", value: 2, username: deployer }
  - name: acl-denied
    type: redis
    config: { command: SET, key: "other:v", value: 2, username: deployer }
  - name: url
    type: redis
    config: { command: PING, url: "redis://deployer:\${REDIS_PASSWORD}@127.0.0.1:${secured.port}/0" }
  - name: wrong
    type: redis
    config: { command: PING, password: wrong-password }
  - name: none
    type: redis
    config: { command: PING, url: "redis://127.0.0.1:${secured.port}", password: "" }
`, { env: { SVC_TEST_REDIS_PASSWORD: PASSWORD } });
    expect(await r.log('echo')).toBe('"pw=*******"\n');
    expect(await r.outputs()).toMatchObject({ echoed: '"pw=*******"' });
    expect(r.node('acl-user').status).toBe(4);
    expect(r.node('acl-denied').error).toMatch(/^redis step: SET failed: NOPERM/);
    expect(await r.log('url')).toBe('"PONG"\n');
    expect(r.node('wrong').error).toMatch(/^redis step: authentication failed at 127\.0\.0\.1:\d+ \(config\.username, config\.password\): WRONGPASS/);
    expect(r.node('none').error).toMatch(/^redis step: 127\.0\.0\.1:\d+ requires a password \(config\.password\): NOAUTH/);
    const everything = JSON.stringify(r.run.status) + (await r.log('echo', 'stderr'));
    expect(everything).not.toContain(PASSWORD);
  });

  test('Redis errors, a refused connection and bad config are step errors', async () => {
    const closed = await freePort();
    await plain.client().set('err:s', 'text');
    const r = await run(`
type: graph
${at(plain)}
params:
  - DB: "20"
steps:
  - name: wrongtype
    type: redis
    config: { command: LPUSH, key: "err:s", value: x }
  - name: unknown
    type: redis
    config: { command: FROBNICATE, key: x }
  - name: refused
    type: redis
    config: { command: PING, port: ${closed} }
  - name: bad-db
    type: redis
    config: { command: PING, db: "\${DB}" }
  - name: bad-url
    type: redis
    config: { command: PING, url: "http://127.0.0.1/" }
`);
    expect(r.node('wrongtype').error).toBe('redis step: LPUSH failed: WRONGTYPE Operation against a key holding the wrong kind of value');
    expect(r.node('unknown').error).toMatch(/^redis step: FROBNICATE failed: ERR unknown command 'FROBNICATE'/);
    expect(r.node('refused').error).toBe(`redis step: cannot connect to 127.0.0.1:${closed}: connect ECONNREFUSED 127.0.0.1:${closed}`);
    expect(r.node('bad-db').error).toBe('redis step: config.db must be an integer from 0 to 15');
    expect(r.node('bad-url').error).toBe('redis step: config.url must be redis:// or rediss://, not http://');
  });

  test('never hangs: config.timeout bounds a silent server; a step timeout aborts a blocked command, closes the connection, frees the lock', async () => {
    const started = Date.now();
    const r = await run(`
type: graph
${at(plain)}
steps:
  - name: silent
    type: redis
    config: { command: PING, port: ${silentPort}, timeout: 1 }
  - name: blocked
    type: redis
    config: { command: BLPOP, key: never-filled, args: [0], timeout: 0, lock: blocked, lockTimeout: 60 }
    timeoutSec: 1
`);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.node('silent').error).toBe('redis step: not done within 1s (config.timeout)');
    expect(r.node('blocked').status).toBe(2);
    expect(r.node('blocked').error).toMatch(/timed out/);
    const c = plain.client();
    await new Promise((res) => setTimeout(res, 200));
    const clients = (await c.call('CLIENT', 'LIST')) as string;
    expect(clients).not.toMatch(/cmd=blpop/);
    // The stopped step's lock was released on a fresh connection, not left to expire in 60 s.
    expect(await c.exists('svc:lock:blocked')).toBe(0);
  });

  test('sentinel mode finds the master through the sentinels; an unknown master name is a clear error', async () => {
    const r = await run(`
type: graph
redis:
  mode: sentinel
  sentinelMaster: mymaster
  sentinelAddrs: [${sentinel.sentinelAddrs.map((a) => `"${a}"`).join(', ')}]
steps:
  - name: write
    type: redis
    config: { command: SET, key: via-sentinel, value: ok }
  - name: role
    type: redis
    config: { command: ROLE, format: jsonl }
  - name: unknown
    type: redis
    config: { command: PING, sentinelMaster: nosuchmaster }
`);
    expect(r.node('write').status).toBe(4);
    expect(await sentinel.master.client().get('via-sentinel')).toBe('ok');
    expect((await r.log('role')).split('\n')[0]).toBe('"master"');
    expect(r.node('unknown').error).toMatch(/^redis step: the sentinels \(127\.0\.0\.1:\d+\) know no master named "nosuchmaster"/);
  });

  test('cluster mode: commands route by slot, pipelines span nodes, KEYS asks every master, cross-slot is an error', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `ck:${i}`);
    const r = await run(`
type: graph
redis:
  mode: cluster
  clusterAddrs: [${cluster.addrs.map((a) => `"${a}"`).join(', ')}]
steps:
  - name: spread
    type: redis
    config:
      pipeline:
${keys.map((k) => `        - { command: SET, key: "${k}", value: v }`).join('\n')}
      format: jsonl
  - name: keys
    depends: [spread]
    type: redis
    config: { command: KEYS, match: "ck:*", format: raw }
  - name: tx
    type: redis
    config:
      multi: true
      pipeline:
        - { command: SET, key: "{acct}:a", value: 1 }
        - { command: INCR, key: "{acct}:a" }
  - name: cross
    type: redis
    config: { command: MGET, keys: [a, b, c] }
  - name: cross-tx
    type: redis
    config:
      multi: true
      pipeline:
        - { command: SET, key: a, value: 1 }
        - { command: SET, key: b, value: 1 }
  - name: seeded-by-host
    type: redis
    config: { command: PING, clusterAddrs: [], host: 127.0.0.1, port: ${cluster.nodes[1]!.port} }
`);
    expect(r.node('spread').error).toBeFalsy();
    expect(await r.log('spread')).toBe('"OK"\n'.repeat(keys.length));
    expect((await r.log('keys')).split('\n').filter(Boolean).sort()).toEqual([...keys].sort());
    expect(await r.log('tx')).toBe('[\n  "OK",\n  2\n]\n');
    expect(r.node('cross').error).toMatch(/^redis step: MGET failed: CROSSSLOT/);
    expect(r.node('cross-tx').error).toMatch(/^redis step: in cluster mode a transaction's keys must hash to one slot/);
    expect(r.node('seeded-by-host').status).toBe(4);
    const holders = await Promise.all(cluster.nodes.map(async (n) => (await n.client().call('DBSIZE')) as number));
    expect(holders.filter((x) => x > 0).length).toBeGreaterThan(1);
  });

  test('TLS: verified with tlsCa, refused without it, tlsSkipVerify with a rediss:// URL', async () => {
    const r = await run(`
type: graph
redis:
  host: 127.0.0.1
  port: ${tlsNode.port}
  tls: true
steps:
  - name: verified
    type: redis
    config: { command: PING, tlsCa: ${ca} }
  - name: unverified
    type: redis
    config: { command: PING }
  - name: skip
    type: redis
    config: { command: PING, url: "rediss://127.0.0.1:${tlsNode.port}", tlsSkipVerify: true }
`);
    expect(await r.log('verified')).toBe('"PONG"\n');
    expect(r.node('unverified').error).toMatch(/^redis step: cannot connect to 127\.0\.0\.1:\d+: .*self[- ]signed/i);
    expect(await r.log('skip')).toBe('"PONG"\n');
  });

  test('examples/steps/redis.yaml runs to success', async () => {
    const r = await run(readFileSync('examples/steps/redis.yaml', 'utf8'), { params: `REDIS_PORT=${plain.port}` });
    expect(r.status).toBe('succeeded');
    expect(await r.outputs()).toMatchObject({ report: 'visit 1 by Ada (admin); took build,2' });
    expect(await plain.client().mget('example:credit:a', 'example:credit:b')).toEqual(['70', '30']);
  });
});

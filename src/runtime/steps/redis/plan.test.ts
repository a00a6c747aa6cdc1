import { buildCommand, splitCommand } from './argv.js';
import { parseAction, parseConnection, parsePlan } from './plan.js';

const argv = (config: Record<string, unknown>): string[] => buildCommand(String(config.command), config, 'config').argv;

describe('redis command lines', () => {
  test('generic order: command words, key, keys, field, value, values, fields, args', () => {
    expect(argv({ command: 'get', key: 'k' })).toEqual(['GET', 'k']);
    expect(argv({ command: 'HSET', key: 'h', field: 'f', value: 1 })).toEqual(['HSET', 'h', 'f', '1']);
    expect(argv({ command: 'HSET', key: 'h', fields: { b: 2, a: true } })).toEqual(['HSET', 'h', 'b', '2', 'a', '1']);
    expect(argv({ command: 'LPUSH', key: 'l', values: ['x', { j: 1 }] })).toEqual(['LPUSH', 'l', 'x', '{"j":1}']);
    expect(argv({ command: 'MGET', keys: ['a', 'b'] })).toEqual(['MGET', 'a', 'b']);
    expect(argv({ command: 'CONFIG GET', args: ['maxmemory'] })).toEqual(['CONFIG', 'GET', 'maxmemory']);
    expect(argv({ command: 'SET greeting "hello world"' })).toEqual(['SET', 'greeting', 'hello world']);
  });

  test('named options of the reference: SET ttl/nx/xx, EXPIRE ttl, ranges, ZADD score, KEYS match, pops count, PUBLISH', () => {
    expect(argv({ command: 'SET', key: 'k', value: 'v', ttl: '60', nx: true })).toEqual(['SET', 'k', 'v', 'EX', '60', 'NX']);
    expect(argv({ command: 'EXPIRE', key: 'k', ttl: 5 })).toEqual(['EXPIRE', 'k', '5']);
    expect(argv({ command: 'LRANGE', key: 'l' })).toEqual(['LRANGE', 'l', '0', '-1']);
    expect(argv({ command: 'LRANGE l 0 1' })).toEqual(['LRANGE', 'l', '0', '1']);
    expect(argv({ command: 'ZRANGE', key: 'z', start: 0, stop: 2, withScores: true })).toEqual(['ZRANGE', 'z', '0', '2', 'WITHSCORES']);
    expect(argv({ command: 'ZADD', key: 'z', score: 1.5, value: 'm' })).toEqual(['ZADD', 'z', '1.5', 'm']);
    expect(argv({ command: 'KEYS' })).toEqual(['KEYS', '*']);
    expect(argv({ command: 'KEYS', match: 'user:*' })).toEqual(['KEYS', 'user:*']);
    expect(argv({ command: 'LPOP', key: 'l', count: 2 })).toEqual(['LPOP', 'l', '2']);
    expect(argv({ command: 'PUBLISH', channel: 'c', message: 'hi' })).toEqual(['PUBLISH', 'c', 'hi']);
    expect(buildCommand('SCAN', { match: 'a*', count: 10 }, 'config')).toMatchObject({ scan: true, argv: ['MATCH', 'a*', 'COUNT', '10'] });
    expect(buildCommand('hgetall', { key: 'h' }, 'config').pairs).toBe(true);
  });

  test('bad values are errors naming the field', () => {
    expect(() => argv({ command: 'SET', key: 'k', value: 'v', ttl: 'soon' })).toThrow('config.ttl must be an integer of at least 1');
    expect(() => argv({ command: 'RPUSH', key: 'k', values: ['a', null] })).toThrow('config.values[1] must be a value');
    expect(() => argv({ command: 'SET', key: 'k', value: 'v', nx: true, xx: true })).toThrow('nx and xx exclude each other');
    expect(() => argv({ command: 'GET;DROP' })).toThrow('is not a Redis command name');
    expect(splitCommand(`SET a 'b c' "d \\" e"`)).toEqual(['SET', 'a', 'b c', 'd " e']);
  });
});

describe('redis step plans', () => {
  test('connection: defaults, URL parts over fields, numbers from expanded text, TLS from rediss', () => {
    expect(parseConnection({})).toEqual({ mode: 'standalone', endpoint: { host: 'localhost', port: 6379 }, db: 0, sentinels: [], clusterNodes: [{ host: 'localhost', port: 6379 }] });
    expect(parseConnection({ url: 'rediss://u:p%40ss@h:7000/3', host: 'other', password: 'x', db: 1 })).toMatchObject({
      endpoint: { host: 'h', port: 7000 }, username: 'u', password: 'p@ss', db: 3, tls: { skipVerify: false },
    });
    expect(parseConnection({ url: 'redis://h', password: 'x', db: '2' })).toMatchObject({ password: 'x', db: 2 });
    expect(parseConnection({ mode: 'sentinel', sentinelMaster: 'm', sentinelAddrs: '127.0.0.1:1, [::1]:2' }).sentinels).toEqual([{ host: '127.0.0.1', port: 1 }, { host: '::1', port: 2 }]);
    expect(parseConnection({ mode: 'cluster', host: 'seed', port: '7001' }).clusterNodes).toEqual([{ host: 'seed', port: 7001 }]);
  });

  test('connection errors never echo the URL', () => {
    expect(() => parseConnection({ url: 'http://u:secret@h' })).toThrow('config.url must be redis:// or rediss://, not http://');
    expect(() => parseConnection({ url: 'redis://u:secret@h/99' })).toThrow('the path must be a database number');
    expect(() => parseConnection({ url: 'nope secret' })).toThrow(/^redis step: config.url is not a URL/);
    expect(() => parseConnection({ db: 16 })).toThrow('config.db must be an integer from 0 to 15');
    expect(() => parseConnection({ mode: 'sentinel', sentinelAddrs: ['a:1'] })).toThrow('sentinel mode needs config.sentinelMaster');
    expect(() => parseConnection({ mode: 'cluster', db: 2 })).toThrow('a cluster has only database 0');
  });

  test('one action: the step command and script stand in for config; scripts take keys and args', () => {
    expect(parseAction({}, ['INCR n'], undefined)).toMatchObject({ kind: 'command', command: { argv: ['INCR', 'n'] } });
    expect(parseAction({ keys: ['k'], args: [1] }, [], 'return 1')).toEqual({ kind: 'script', source: 'return 1', keys: ['k'], args: ['1'] });
    expect(parseAction({ scriptSha: 'abc', scriptKeys: ['a'], keys: ['b'] }, [], undefined)).toEqual({ kind: 'script', sha: 'abc', keys: ['a'], args: [] });
    expect(parseAction({ pipeline: [{ command: 'GET', key: 'a' }], watch: 'a' }, [], undefined)).toMatchObject({ kind: 'pipeline', multi: true, watch: ['a'] });
    expect(() => parseAction({}, [], undefined)).toThrow('config.command is required');
    expect(() => parseAction({ command: 'GET', script: 'x' }, [], undefined)).toThrow('give one of command, pipeline and script (found command, script)');
    expect(() => parseAction({ pipeline: [{ key: 'a' }] }, [], undefined)).toThrow('config.pipeline[0].command is required');
    expect(() => parseAction({ pipeline: [{ command: 'SCAN' }] }, [], undefined)).toThrow('cannot run in a pipeline');
  });

  test('lock, format and timeout defaults', () => {
    expect(parsePlan({ command: 'PING', lock: 'nightly' }, [])).toMatchObject({
      lock: { name: 'nightly', key: 'svc:lock:nightly', ttlMs: 30_000, attempts: 10, waitMs: 100 }, format: 'json', nullValue: 'null', timeoutMs: 30_000,
    });
    expect(parsePlan({ command: 'PING', format: 'CSV', timeout: 0, nullValue: '' }, [])).toMatchObject({ format: 'csv', nullValue: '', timeoutMs: 0 });
    expect(() => parsePlan({ command: 'PING', format: 'csv', outputFormat: 'raw' }, [])).toThrow('disagree');
    expect(() => parsePlan({ command: 'PING', outputFormat: 'xml' }, [])).toThrow('must be one of json, jsonl, raw, csv');
  });
});

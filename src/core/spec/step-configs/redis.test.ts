import { Problems } from '../errors.js';
import { loadDagText } from '../load.js';
import { checkStepConfigs } from '../step-configs.js';
import { checkRedis } from './redis.js';

/** The load errors of a DAG plus the redis check's problems (the check is passed in until it is wired). */
function problems(yaml: string): string[] {
  const loaded = loadDagText(yaml, { fileName: 'd' });
  const p = new Problems();
  if (loaded.dag) checkStepConfigs(loaded.dag, p, { redis: checkRedis });
  return [...new Set([...loaded.errors, ...p.list])];
}

const step = loadDagText('steps:\n  - type: redis\n    command: PING\n', { fileName: 'd' }).dag!.steps[0]!;

describe('load-time check of redis steps', () => {
  test('a command, a pipeline or a script is required, and only one of them', () => {
    expect(problems(`
type: graph
steps:
  - name: none
    type: redis
    config: { key: k }
  - name: both
    type: redis
    config:
      command: GET
      key: k
      pipeline: [{ command: PING }]
  - name: stepcmd
    type: redis
    command: GET k
  - name: lua
    type: redis
    script: return 1
  - name: file
    type: redis
    config: { scriptFile: incr.lua, keys: [a] }
`)).toEqual([
      'steps[0] (none).config.command: is required for redis steps (or config.pipeline, or a Lua config.script)',
      'steps[1] (both).config: give one of command, pipeline and script (found command, pipeline)',
    ]);
  });

  test('pipeline items need a command and known fields; multi and watch need a pipeline', () => {
    expect(problems(`
type: graph
steps:
  - name: p
    type: redis
    config:
      multi: true
      pipeline:
        - { command: SET, key: a, value: 1 }
        - { key: b }
        - { command: GET, key: a, ttl_sec: 3 }
  - name: m
    type: redis
    config: { command: GET, key: a, multi: true }
  - name: empty
    type: redis
    config: { pipeline: [] }
`)).toEqual([
      'steps[0] (p).config.pipeline[1].command: is required',
      'steps[0] (p).config.pipeline[2].ttl_sec: is not a redis step field',
      'steps[1] (m).config.multi: applies to a pipeline (config.pipeline)',
      'steps[2] (empty).config.pipeline: must be a list of commands ({command, key, value ...})',
    ]);
  });

  test('sentinel mode needs its master and sentinels; cluster mode its nodes or a host; the DAG block counts', () => {
    expect(problems(`
type: graph
steps:
  - name: s
    type: redis
    config: { command: PING, mode: sentinel }
  - name: c
    type: redis
    config: { command: PING, mode: cluster }
  - name: bad
    type: redis
    config: { command: PING, mode: replica }
`)).toEqual([
      'steps[0] (s).config.sentinelMaster: is required in sentinel mode',
      'steps[0] (s).config.sentinelAddrs: is required in sentinel mode',
      'steps[1] (c).config.clusterAddrs: is required in cluster mode',
      'steps[2] (bad).config.mode: must be one of standalone, sentinel, cluster',
    ]);
    // A host alone seeds a cluster client (the step-level syntax check of blocks.ts still asks for clusterAddrs).
    expect(checkRedis({ command: 'PING', mode: 'cluster', host: 'node1' }, step)).toEqual([]);
    expect(problems(`
redis: { mode: sentinel, sentinelMaster: mymaster, sentinelAddrs: ["s1:26379"] }
steps:
  - type: redis
    config: { command: PING }
`)).toEqual([]);
  });

  test('output format, db, lock and unknown fields (the reference spelling gets a hint)', () => {
    expect(problems(`
steps:
  - name: x
    type: redis
    config:
      command: GET
      key: k
      outputFormat: xml
      db: 16
      lock: ''
      sentinel_master: m
      colour: red
`)).toEqual([
      'steps[0] (x).config.outputFormat: must be one of json, jsonl, raw, csv',
      'steps[0] (x).config.db: must be a database number from 0 to 15',
      'steps[0] (x).config.lock: must be a lock name',
      'steps[0] (x).config.sentinel_master: is not a redis step field (did you mean sentinelMaster?)',
      'steps[0] (x).config.colour: is not a redis step field',
    ]);
  });

  test('values written as ${VAR} count as given and are not type-checked', () => {
    expect(problems(`
params:
  - FMT: csv
  - DB: "3"
  - ADDRS: "a:1,b:2"
steps:
  - type: redis
    config:
      command: GET
      key: k
      format: \${FMT}
      db: \${DB}
      mode: cluster
      clusterAddrs: \${ADDRS}
`)).toEqual([]);
  });
});

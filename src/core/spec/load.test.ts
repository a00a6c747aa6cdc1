import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDagText } from './load.js';
import type { DagDefinition, StepDefinition } from './types.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (rel: string): string => readFileSync(join(here, 'testdata', rel), 'utf8');

function loadOk(rel: string): DagDefinition {
  const r = loadDagText(fixture(rel), { fileName: rel.replace(/^.*\/|\.yaml$/g, '') });
  expect(r.errors).toEqual([]);
  if (!r.dag) throw new Error('no dag');
  return r.dag;
}

const step = (dag: DagDefinition, name: string): StepDefinition => {
  const s = dag.steps.find((x) => x.name === name);
  if (!s) throw new Error(`no step ${name} in ${dag.steps.map((x) => x.name).join(',')}`);
  return s;
};

describe('valid fixtures load without errors', () => {
  it.each(readdirSync(join(here, 'testdata/valid')))('%s', (file) => {
    loadOk(`valid/${file}`);
  });
});

describe('invalid fixtures report every expected message', () => {
  it.each(readdirSync(join(here, 'testdata/invalid')))('%s', (file) => {
    const text = fixture(`invalid/${file}`);
    const expected = [...text.matchAll(/^# expect: (.*)$/gm)].map((m) => m[1]);
    const r = loadDagText(text, { fileName: 'invalid' });
    expect(expected.length).toBeGreaterThan(0);
    for (const msg of expected) expect(r.errors).toContain(msg);
  });
});

describe('defaults (SPEC 2.2, 2.3, 8)', () => {
  it('fills every default of a minimal DAG', () => {
    const dag = loadOk('valid/minimal.yaml');
    expect(dag).toEqual({
      name: 'minimal', tags: [], type: 'chain', schedule: { start: [], stop: [], restart: [] },
      skipIfSuccessful: false, restartWaitSec: 0, maxActiveRuns: 1, maxActiveSteps: 1, timeoutSec: 0, delaySec: 0,
      maxCleanUpTimeSec: 5, preconditions: [], runConfig: { disableParamEdit: false, disableRunIdEdit: false },
      params: [], env: [], secrets: [], dotenv: ['.env'], logOutput: 'separate', histRetentionDays: 30,
      maxOutputSize: 1048576, registryAuths: {}, mailOn: { success: false, failure: false, wait: false },
      handlerOn: {}, skipBaseHandlers: false,
      steps: [{
        name: 'cmd_1', type: 'shell', config: {}, commands: ['echo hello'], depends: [], env: [],
        signalOnStop: 'SIGTERM', mailOnError: false, messages: [], preconditions: [],
        continueOn: { failure: false, skipped: false, exitCode: [], output: [], markSuccess: false },
      }],
    });
  });
});

describe('steps: chain, graph, map', () => {
  it('chain: generated names, implicit order, depends [] opts out, nested groups', () => {
    const dag = loadOk('valid/chain.yaml');
    expect(dag.steps.map((s) => [s.name, s.depends])).toEqual([
      ['cmd_1', []], ['script_2', ['cmd_1']], ['dag_3', ['script_2']], ['http_4', ['dag_3']],
      ['independent', []], ['left', ['independent']], ['right', ['independent']], ['join', ['left', 'right']],
    ]);
    expect(step(dag, 'dag_3')).toMatchObject({ type: 'dag', call: 'child', commands: [] });
    expect(step(dag, 'script_2')).toMatchObject({ script: 'echo two', commands: [] });
  });

  it('graph: only explicit depends, ids resolved to names', () => {
    const dag = loadOk('valid/graph.yaml');
    expect(dag.type).toBe('graph');
    expect(dag.steps.map((s) => [s.name, s.depends])).toEqual([
      ['fetch', []], ['parse', ['fetch']], ['report', ['parse', 'fetch']], ['alone', []],
    ]);
    expect(step(dag, 'fetch').id).toBe('fetcher');
  });

  it('map form: key is the name, no chain order', () => {
    const dag = loadOk('valid/map-steps.yaml');
    expect(dag.steps.map((s) => [s.name, s.depends, s.commands])).toEqual([
      ['build', [], ['make']], ['test', ['build'], ['make test']], ['lint', [], ['make lint']],
    ]);
  });
});

describe('alternative forms', () => {
  const dag = loadOk('valid/forms.yaml');

  it('DAG-level forms', () => {
    expect(dag.tags).toEqual([{ key: 'env', value: 'prod' }, { key: 'critical' }, { key: 'team', value: 'data' }]);
    expect(dag.schedule.start).toEqual([
      { expression: '0 8 * * 1-5', timezone: 'Europe/Paris', raw: 'CRON_TZ=Europe/Paris 0 8 * * 1-5' },
      { expression: '30 * * * *', raw: '30 * * * *' },
    ]);
    expect(dag.schedule.stop).toEqual([{ expression: '0 18 * * *', timezone: 'UTC', raw: 'TZ=UTC 0 18 * * *' }]);
    expect(dag.params).toEqual([
      { default: 'first' }, { name: 'KEY', default: 'value' }, { name: 'QUOTED', default: 'a b c' }, { default: '`date +%F`' },
    ]);
    expect(dag.env).toEqual([
      { name: 'HOME_DIR', value: '/tmp' }, { name: 'PATH_EXTRA', value: '/opt/bin' }, { name: 'COUNT', value: '3' },
    ]);
    expect(dag.dotenv).toEqual(['.env', '.env.local']);
    expect(dag.shell).toEqual(['bash', '-e']);
    expect(dag.logOutput).toBe('merged');
    expect(dag.workerSelector).toEqual({ gpu: 'true', zone: 'eu' });
    expect(dag.runConfig).toEqual({ disableParamEdit: true, disableRunIdEdit: false });
    expect(dag.preconditions).toEqual([{ condition: 'test -f /etc/hosts', negate: false }]);
  });

  it('step policies', () => {
    expect(step(dag, 'guarded')).toMatchObject({
      preconditions: [{ condition: '`date +%d`', expected: 're:[0-9]+', negate: true }],
      continueOn: { skipped: true, failure: false },
      output: { name: 'RESULT', key: 'result', omit: false },
      env: [{ name: 'A', value: '1' }],
    });
    expect(step(dag, 'retried')).toMatchObject({
      commands: ['echo a', 'echo b'], workingDir: '/tmp', signalOnStop: 'SIGINT', timeoutSec: 30,
      retryPolicy: { limit: 3, intervalSec: 5, backoff: 2, maxIntervalSec: 60, exitCode: [1] },
      repeatPolicy: { mode: 'until', condition: '${STATUS}', expected: 'done', limit: 4, backoff: 1, exitCode: [] },
      continueOn: { failure: true, skipped: false, exitCode: [2, 3], output: ['re:WARN'], markSuccess: true },
      output: { name: 'RESULT_VALUE', key: 'resultValue', omit: true },
    });
    expect(step(dag, 'forever').repeatPolicy).toEqual({ mode: 'while', intervalSec: 10, backoff: 1.5, maxIntervalSec: 0, limit: 0, exitCode: [] });
  });

  it('types, aliases and sub-DAG calls', () => {
    expect(step(dag, 'fanout')).toMatchObject({
      type: 'dag', call: 'child', params: 'ITEM=${ITEM}', parallel: { items: ['a', 'b', { x: 1 }], maxConcurrent: 2 },
    });
    expect(step(dag, 'legacy')).toMatchObject({ type: 'gha', config: { runner: 'ubuntu' }, commands: ['actions/checkout@v4'] });
    expect(step(dag, 'nested')).toMatchObject({ type: 'dag', call: 'child', commands: [], params: { A: 1 } });
  });
});

describe('connection blocks and handlers', () => {
  const dag = loadOk('valid/blocks.yaml');

  it('DAG container makes steps container steps', () => {
    expect(dag.container).toMatchObject({
      image: 'alpine:3', pullPolicy: 'missing', env: ['A=1'], ports: ['8080', '9090:90'], startup: 'command',
      command: ['sleep', 'infinity'], waitFor: 'running', restartPolicy: 'no', keepContainer: false, shell: ['sh', '-c'],
    });
    expect(step(dag, 'in-container').type).toBe('container');
    expect(step(dag, 'own-container').container).toMatchObject({ exec: 'running-box' });
    expect(step(dag, 'ask').type).toBe('hitl');
    expect(step(dag, 'talk')).toMatchObject({ type: 'chat', llm: { provider: 'local', stream: true, maxToolIterations: 10 } });
  });

  it('blocks get their defaults', () => {
    expect(dag.registryAuths).toEqual({ 'ghcr.io': { username: 'u', password: 'p' } });
    expect(dag.llm).toMatchObject({ temperature: 0.5, stream: true, maxToolIterations: 10, tools: [], thinking: { enabled: true, effort: 'high' } });
    expect(dag.redis).toEqual({ host: 'localhost', port: 6379, db: 2, mode: 'standalone', sentinelAddrs: [], clusterAddrs: [] });
    expect(dag.smtp).toEqual({ host: 'smtp.example.com', port: '587' });
    expect(dag.otel).toEqual({ enabled: true, insecure: false, timeoutMs: 90000, headers: { Authorization: 'token' }, resource: {} });
    expect(dag.mailOn).toEqual({ success: false, failure: true, wait: false });
    expect(dag.errorMail).toEqual({ to: ['ops@example.com'], attachLogs: true });
    expect(dag.infoMail?.to).toEqual(['a@example.com', 'b@example.com']);
    expect(dag.secrets).toEqual([{ name: 'TOKEN', provider: 'env', key: 'GH_TOKEN', options: {} }]);
  });

  it('handlers are steps with default names; cancel is abort', () => {
    expect(Object.keys(dag.handlerOn).sort()).toEqual(['abort', 'failure', 'init']);
    expect(dag.handlerOn.init).toMatchObject({ name: 'onInit', commands: ['echo init'], depends: [] });
    expect(dag.handlerOn.abort?.name).toBe('onAbort');
    expect(dag.handlerOn.failure?.name).toBe('notify');
  });

  it('a step named like a defined handler\'s node (onExit) is rejected; without that handler the name is free', () => {
    const text = (handler: string) => `steps:\n  - name: onExit\n    command: "true"\n${handler}`;
    expect(loadDagText(text('handlerOn:\n  exit:\n    command: echo bye\n'), { fileName: 'x' }).errors)
      .toEqual(['handlerOn.exit: "onExit" is also the name of a step: a step and a handler cannot share it, rename the step']);
    expect(loadDagText(text('handlerOn:\n  failure:\n    command: echo bye\n'), { fileName: 'x' }).errors).toEqual([]);
  });
});

describe('ssh', () => {
  it('DAG ssh makes untyped steps ssh; step config replaces it', () => {
    const dag = loadOk('valid/ssh.yaml');
    expect(dag.ssh).toEqual({ user: 'deploy', host: 'example.com', port: '22', strictHostKey: true, shell: ['bash'] });
    expect(step(dag, 'remote')).toMatchObject({ type: 'ssh' });
    expect(step(dag, 'remote').ssh).toBeUndefined();
    expect(step(dag, 'elsewhere').ssh).toEqual({ user: 'ops', host: 'other.example.com', port: '2222', strictHostKey: true, shell: ['/bin/zsh'] });
    expect(step(dag, 'local').type).toBe('shell');
  });
});

describe('multiple documents', () => {
  it('documents 2..n are local DAGs', () => {
    const r = loadDagText(fixture('valid/multi-doc.yaml'), { fileName: 'x' });
    expect(r.errors).toEqual([]);
    expect(r.dag?.name).toBe('parent');
    expect(r.localDags.map((l) => [l.name, l.dag?.type, l.errors])).toEqual([['child-a', 'chain', []], ['child-b', 'graph', []]]);
  });

  it('a broken main document still reports the local ones', () => {
    const r = loadDagText('steps: [\n---\nname: sub\nsteps: [echo]\n', { fileName: 'x' });
    expect(r.dag).toBeUndefined();
    expect(r.localDags[0]?.name).toBe('sub');
    expect(r.errors[0]).toMatch(/^yaml \(line \d+, column \d+\): /);
  });

  it.each([
    ['', '(document): is empty'],
    ['# only a comment\n', '(document): is empty'],
    ['- a\n- b\n', '(document): must be a map of DAG fields'],
    ['hello', '(document): must be a map of DAG fields'],
  ])('%j', (text, message) => {
    expect(loadDagText(text, { fileName: 'x' })).toEqual({ localDags: [], errors: [message] });
  });
});

/**
 * The step entry's agent (`svc-entry agent --dir D`, the PID 1 of a DAG-level container's run Pod), run
 * here as a local process: requests and signals arrive as files. A signal file is read only when whole
 * (the operator renames it into place; a dot-named file is one being written), and a stop reaches the
 * step's trap, whose last words are in the log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { eventually } from '../helpers/server.js';

const REF_VALUE = 'agent-ref-value-9917';
const ENTRY = join(ROOT, 'dist/image/usr/local/bin/svc-entry');
if (!existsSync(ENTRY) && process.env.CI === 'true') throw new Error(`no step entry binary at ${ENTRY}: run npm run build`);
if (!existsSync(ENTRY)) console.warn(`!!! SKIPPING the entry agent tests: no ${ENTRY} (npm run build needs Go)`);

describe('svc-entry agent', () => {
  let dir = '';
  let agent: ChildProcess;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-agent-'));
    agent = spawn(ENTRY, ['agent', '--dir', join(dir, 'agent')], { stdio: 'ignore', env: { ...process.env, SVC_SECRET_REF_0: REF_VALUE } });
  });
  afterEach(async () => {
    agent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const request = (id: string, script: string | object[], more: object = {}): void => {
    const requests = join(dir, 'agent', 'requests');
    mkdirSync(requests, { recursive: true });
    const body = {
      id, stdout: join(dir, 'logs', `${id}.out`), stderr: join(dir, 'logs', `${id}.err`), result: join(dir, 'results', `${id}.json`),
      commands: [['sh', '-c', script]], scriptArg: -1, stopSignal: 'SIGTERM', timeoutMs: 0, masks: [], env: {}, workingDir: '', ...more,
    };
    writeFileSync(join(requests, `${id}.json.tmp`), JSON.stringify(body));
    renameSync(join(requests, `${id}.json.tmp`), join(requests, `${id}.json`));
  };
  const stdout = (id: string) => (existsSync(join(dir, 'logs', `${id}.out`)) ? readFileSync(join(dir, 'logs', `${id}.out`), 'utf8') : '');
  const result = (id: string) => (existsSync(join(dir, 'results', `${id}.json`)) ? JSON.parse(readFileSync(join(dir, 'results', `${id}.json`), 'utf8')) : undefined);
  (existsSync(ENTRY) ? test : test.skip)('references resolve from the agent\'s env, masked; the step never inherits the reference variable', async () => {
    const ref = { ref: 'SVC_SECRET_REF_0' };
    request('r1', ['echo "in command ', ref, '"; echo "env $TOKEN"; env | grep -c SVC_SECRET_REF_ || true'], { masks: [[ref]], env: { TOKEN: ['<', ref, '>'] } });
    expect((await eventually(async () => result('r1'), 'the result')).exitCode).toBe(0);
    expect(stdout('r1')).toBe('in command *******\nenv <*******>\n0\n');
  });

  const TRAPPED = 'trap "echo stopped; exit 5" TERM; echo up; sleep 60 & wait';

  (existsSync(ENTRY) ? test : test.skip)('a stop signal reaches the step: its trap runs and its last line is logged', async () => {
    request('s1', TRAPPED);
    await eventually(async () => stdout('s1').includes('up') || undefined, 'the step to start');
    writeFileSync(join(dir, 'agent', 'signals', 's1'), 'stop');
    const r = await eventually(async () => result('s1'), 'the result');
    expect(r.exitCode).toBe(5);
    expect(r.signal).toBe('SIGTERM');
    expect(stdout('s1')).toBe('up\nstopped\n');
  });

  (existsSync(ENTRY) ? test : test.skip)('a signal file still being written (dot-named, empty) is left alone until renamed into place', async () => {
    request('s2', TRAPPED);
    await eventually(async () => stdout('s2').includes('up') || undefined, 'the step to start');
    const partial = join(dir, 'agent', 'signals', '.s2.partial');
    writeFileSync(partial, '');
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(partial)).toBe(true);
    expect(result('s2')).toBeUndefined();
    writeFileSync(partial, 'stop');
    renameSync(partial, join(dir, 'agent', 'signals', 's2'));
    expect((await eventually(async () => result('s2'), 'the result')).exitCode).toBe(5);
    expect(stdout('s2')).toBe('up\nstopped\n');
  });
});

/** The process launcher passes the Launcher conformance suite, spawning from Node and through the fork helper. */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launcherConformance } from '../../core/ports/conformance/launcher.js';
import type { ExecRequest } from '../../core/ports/executor.js';
import { ForkServer } from './fork-server.js';
import type { LocalRequest } from './local.js';
import { nativeForkServer } from './native.js';
import { ProcessExecutor } from './process.js';

const NATIVE = nativeForkServer();
if (!NATIVE && process.env.CI === 'true') throw new Error('the native fork server is required under CI=true (npm run build, with a C compiler)');

const COMMANDS = { ok: 'exit 0', fail: 'exit 3', hold: 'sleep 30' } as const;

function fixture(forkServer?: ForkServer) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-launcher-'));
  let n = 0;
  const layout = (req: ExecRequest) => (req as LocalRequest).files;
  const launcher = new ProcessExecutor({ layout, ...(forkServer ? { forkServer } : {}) });
  return {
    launcher,
    request: (what: keyof typeof COMMANDS): ExecRequest => {
      const node = `s${n++}`;
      const count = join(dir, `${node}.count`);
      return {
        exec: { node, attempt: 0 }, step: {} as ExecRequest['step'], commands: [`echo ran >> ${count}; ${COMMANDS[what]}`], config: {}, shell: ['/bin/sh', '-e'], shellExplicit: false,
        env: { PATH: '/usr/bin:/bin' }, workingDir: dir, secrets: [], maxOutputSize: 1 << 20, timeoutMs: 0, capture: false, copies: {}, merged: false,
        identity: { dagName: 'd', dagRunId: 'r', attemptId: 'a', node, attempt: 0 },
        files: { stdout: join(dir, `${node}.out`), stderr: join(dir, `${node}.err`), recordFile: join(dir, 'records'), recordKey: `${node}.0`, scratchDir: join(dir, 'scratch') },
      } as LocalRequest;
    },
    starts: async (req: ExecRequest) => {
      const count = join(dir, `${req.identity.node}.count`);
      return existsSync(count) ? readFileSync(count, 'utf8').split('\n').filter(Boolean).length : 0;
    },
  };
}

launcherConformance('ProcessExecutor (spawned from Node)', async () => fixture());
if (NATIVE) launcherConformance('ProcessExecutor (fork helper)', async () => fixture(new ForkServer({ native: NATIVE })));
else console.warn('!!! SKIPPING the fork helper launcher conformance: no dist/svc-fork-server');

describe('ProcessExecutor: unlogged executions (probes that read a secret)', () => {
  // Unlogged output always passes through the engine (never the fork helper, which writes files): one path.
  test('the output comes back whole in the result (not trimmed) and is written to no file', async () => {
    const f = fixture(NATIVE ? new ForkServer({ native: NATIVE }) : undefined);
    const req = { ...f.request('ok'), commands: ['printf "  top-secret \\n"; echo oops >&2'], capture: true, unlogged: true } as LocalRequest;
    const r = await (await f.launcher.ensure(req, { fresh: true }))!.result;
    expect(r).toMatchObject({ exitCode: 0, output: '  top-secret \n' });
    for (const file of [req.files.stdout, req.files.stderr]) expect(existsSync(file) ? readFileSync(file, 'utf8') : '').toBe('');
  });
});

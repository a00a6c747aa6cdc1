/**
 * The step entry binary with what the operator gives it (pod-spec.ts), run on this host: a command that
 * carries secrets comes from the execution's Secret and its output is masked, overlapping secrets too;
 * ATTACK (the log store): a probe that reads a `file` secret writes its output to the log store (a shared
 * volume, a bucket). The entry seals it there (src/entry/seal.go); the operator's launcher opens it
 * (src/adapters/launcher/pod/seal.ts): the two must agree, and the stored file must not hold the value.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { Sealer, unseal } from '../../src/adapters/launcher/pod/seal.js';
import { stepPod } from '../../src/adapters/launcher/pod/pod-spec.js';
import type { ExecRequest } from '../../src/core/ports/executor.js';

const ENTRY = join(ROOT, 'dist/image/usr/local/bin/svc-entry');
if (!existsSync(ENTRY) && process.env.CI === 'true') throw new Error(`no step entry binary at ${ENTRY}: run npm run build`);
const maybe = existsSync(ENTRY) ? describe : describe.skip;
if (!existsSync(ENTRY)) console.warn(`!!! SKIPPING the entry seal tests: no ${ENTRY} (npm run build needs Go)`);

/**
 * Runs a step Pod's container as the kubelet would: its command, its env with the execution's Secret's
 * keys resolved, on this host (the entry from dist/image in place of the image volume's).
 */
function runContainer(req: ExecRequest, dir: string, seal?: string): { stdout: string; stderr: string; status: number | null } {
  const files = { stdout: join(dir, 'out'), stderr: join(dir, 'err'), result: join(dir, 'r.json'), root: dir, ...(seal ? { seal } : {}) };
  const { pod, secret } = stepPod(req, { name: 'run', uid: 'u' }, files, { namespace: 'ns', stepImage: 'x', entryImage: 'svc', entryDelivery: 'image-volume', stopGraceSeconds: 1 });
  const c = pod.spec!.containers[0]!;
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  for (const e of c.env ?? []) {
    const key = e.valueFrom?.secretKeyRef?.key;
    env[e.name] = key ? Buffer.from(secret!.data![key]!, 'base64').toString() : e.value ?? '';
  }
  const [, ...args] = c.command!;
  const r = spawnSync(ENTRY, args, { env, encoding: 'utf8' });
  return { stdout: existsSync(files.stdout) ? readFileSync(files.stdout, 'utf8') : '', stderr: r.stderr, status: r.status };
}

function request(extra: Partial<ExecRequest>): ExecRequest {
  return {
    exec: { node: 's', attempt: 0 }, step: { name: 's', type: 'container', signalOnStop: 'SIGTERM' }, commands: [], shell: [], shellExplicit: false,
    env: {}, workingDir: '/', identity: { dagName: 'd', dagRunId: 'r', attemptId: 'a', node: 's', attempt: 0 },
    merged: false, copies: {}, secrets: [], maxOutputSize: 1 << 20, timeoutMs: 0, capture: true, ...extra,
  } as unknown as ExecRequest;
}

maybe('a step Pod as the operator builds it, run by the entry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-podrun-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a container step whose command carries secrets runs from the Secret, masked, overlaps too', () => {
    const r = runContainer(request({ commands: ['printf "%s|%s" abcdefgh "q\\"x"'], secrets: ['abcdef', 'cdefgh', 'q"x'] }), dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('*******|*******');
  });

  it('an unlogged probe: the log file holds its output sealed', () => {
    const key = new Sealer().keyFor('p');
    const r = runContainer(request({ step: { name: 's', type: 'shell', signalOnStop: 'SIGTERM' } as ExecRequest['step'], shell: ['/bin/sh'], commands: ['printf probe-secret-42'], unlogged: true }), join(dir, 'p'), key);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('probe-secret-42');
    expect(unseal(r.stdout, key)).toBe('probe-secret-42');
  });
});

maybe('svc-entry --seal-env', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-seal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the stored stdout is sealed; the launcher opens it to the exact text', () => {
    const key = new Sealer().keyFor('probe-1');
    const secret = 'file-secret "quoted" \\ and\nnewline';
    const out = join(dir, 'out');
    const r = spawnSync(ENTRY, ['run', '--stdout', out, '--stderr', join(dir, 'err'), '--result', join(dir, 'r.json'), '--quiet', '--seal-env', 'SVC_SEAL', '--commands-env', 'SVC_COMMANDS'], {
      env: { PATH: process.env.PATH, SVC_SEAL: key, SVC_COMMANDS: JSON.stringify([['printf', '%s', secret]]) }, encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const stored = readFileSync(out, 'utf8');
    for (const part of ['file-secret', 'quoted', 'newline']) expect(stored).not.toContain(part);
    expect(unseal(stored, key)).toBe(secret);
    expect(() => unseal(stored, new Sealer().keyFor('probe-1'))).toThrow();
  });
});

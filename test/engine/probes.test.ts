/**
 * The engine's own questions (preconditions, repeat conditions, backquotes, dotenv, file secrets) are
 * probes: executions of the shell launcher with their own identities, never commands of the engine's
 * process. On in-memory adapters: no disk, no processes; the probe answers come from the test.
 */
import type { ExecRequest } from '../../src/core/ports/executor.js';
import type { Outcome } from '../../src/adapters/launcher/memory-executor.js';
import { NodeStatus, RunStatus } from '../../src/core/run/status.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { BuiltinSecretProvider } from '../../src/runtime/secrets/providers.js';
import { create, engine, keyOf, memoryDeps, quiet, statuses, until, world } from './memory-world.js';

const kinds = (reqs: ExecRequest[]) => reqs.map((r) => `${r.identity.node}:${r.identity.probe!.replace(/\d+-.*$/, '')}`);

describe('probes run through the launcher', () => {
  test('step and DAG preconditions: their commands run as probes of their owner; the exit code decides', async () => {
    const w = world(undefined, (req) => ({ exitCode: req.commands[0]!.includes('missing') ? 1 : 0 }));
    const runs = engine(w, 1);
    const run = await create(runs, [
      'preconditions:\n  - condition: "test -d /"',
      'steps:\n  - name: a\n    command: x\n    preconditions:\n      - condition: "test -f missing"',
      '  - name: b\n    command: y\n    depends: []\n    preconditions:\n      - condition: "test -f present"',
    ].join('\n'));
    const done = await runs.drive(keyOf(run));
    expect(done.status.run.status).toBe(RunStatus.Succeeded);
    expect(statuses(done)).toEqual([NodeStatus.Skipped, NodeStatus.Succeeded]);
    expect(w.executor.starts.map((n) => n.split('-')[1])).toEqual(['b']);
    expect(kinds(w.executor.probes)).toEqual(expect.arrayContaining([':dotenv', ':pre', 'a:pre', 'b:pre']));
    const pre = w.executor.probes.find((p) => p.identity.node === 'a')!;
    expect(pre.commands).toEqual(['test -f missing']);
    expect(pre.identity).toMatchObject({ dagRunId: run.spec.dagRunId, attemptId: run.status.attemptId, attempt: 0 });
  });

  test('an unmet DAG precondition: the run is skipped without running a step', async () => {
    const w = world(undefined, (req) => ({ exitCode: req.commands[0] === 'false' ? 1 : 0 }));
    const runs = engine(w, 1);
    const run = await create(runs, 'preconditions:\n  - condition: "false"\nsteps:\n  - name: a\n    command: x\n');
    const done = await runs.drive(keyOf(run));
    expect(w.executor.starts).toEqual([]);
    expect(done.status.run.error).toMatch(/precondition/);
  });

  test('dotenv files are read by one unlogged probe; backquotes in a step env run as probes of that step', async () => {
    const probe = (req: ExecRequest): Outcome => {
      const marker = /--svc-dotenv-[^']+--/.exec(req.commands[0]!)?.[0];
      // As the launcher reports it: trimmed. `.env` is missing (empty), extra.env has both lines.
      if (req.identity.probe!.startsWith('dotenv')) return { exitCode: 0, output: `\n${marker}\nFROM_FILE=one\nSECOND=two\n${marker}\n`.trim() };
      return { exitCode: 0, output: req.commands[0] === 'echo hi' ? 'hi' : '' };
    };
    let stepEnv: Record<string, string> = {};
    const w = world((req) => { stepEnv = req.env; return { exitCode: 0 }; }, probe);
    const warnings: string[] = [];
    const runs = engine(w, 1, { ...quiet, warn: (msg) => { warnings.push(msg); } });
    const run = await create(runs, 'dotenv: [extra.env]\nsteps:\n  - name: a\n    command: x\n    env:\n      - GREETING: "`echo hi`"\n');
    await runs.drive(keyOf(run));
    const dotenv = w.executor.probes.filter((p) => p.identity.probe!.startsWith('dotenv'));
    expect(dotenv).toHaveLength(1);
    expect(dotenv[0]!.unlogged).toBe(true);
    expect(dotenv[0]!.commands[0]).toMatch(/\.env[\s\S]*extra\.env/);
    const env = w.executor.probes.find((p) => p.commands[0] === 'echo hi')!;
    expect(env.identity).toMatchObject({ node: 'a', attempt: 0 });
    // The step saw both dotenv files and the backquote's output.
    expect(stepEnv).toMatchObject({ FROM_FILE: 'one', SECOND: 'two', GREETING: 'hi' });
    expect(warnings).toEqual([]);
  });

  test('a file secret is read by an unlogged probe and masked in the step; repeat conditions are probes too', async () => {
    let stepEnv: Record<string, string> = {};
    let stepSecrets: string[] = [];
    let runsOfA = 0;
    const w = world((req) => {
      stepEnv = req.env; stepSecrets = req.secrets; runsOfA += 1;
      return { exitCode: 0 };
    }, (req) => {
      if (req.identity.probe!.startsWith('secret')) return { exitCode: 0, output: 's3cr3t' };
      if (req.identity.probe!.startsWith('repeat')) return { exitCode: runsOfA < 3 ? 0 : 1 };
      return { exitCode: 0 };
    });
    const runs = new RunService({ ...memoryDeps(w, 1), secrets: new BuiltinSecretProvider() });
    const run = await create(runs, [
      'secrets:\n  - name: TOKEN\n    provider: file\n    key: token.txt',
      'steps:\n  - name: a\n    command: x\n    repeatPolicy:\n      condition: "test -f again"\n      intervalSec: 0',
    ].join('\n'));
    const done = await runs.drive(keyOf(run));
    expect(done.status.run.status).toBe(RunStatus.Succeeded);
    const secret = w.executor.probes.find((p) => p.identity.probe!.startsWith('secret'))!;
    expect(secret.unlogged).toBe(true);
    expect(secret.commands[0]).toContain("'/nonexistent/token.txt'");
    expect(stepEnv.TOKEN).toBe('s3cr3t');
    expect(stepSecrets).toContain('s3cr3t');
    // Repeated while the condition probe exits 0; each probe belongs to the execution it follows.
    expect(runsOfA).toBe(3);
    const repeats = w.executor.probes.filter((p) => p.identity.probe!.startsWith('repeat'));
    expect(repeats.map((p) => p.identity.attempt)).toEqual([0, 1, 2]);
    expect(repeats[0]!.secrets).toContain('s3cr3t');
  });

  test('a launcher whose steps run here reads dotenv files and file secrets itself: no probe, same values, same order', async () => {
    let stepEnv: Record<string, string> = {};
    let stepSecrets: string[] = [];
    const w = world((req) => { stepEnv = req.env; stepSecrets = req.secrets; return { exitCode: 0 }; });
    // The working directory (and the DAG's) is /nonexistent; .env is missing there (read as empty).
    const files: Record<string, string> = { '/nonexistent/extra.env': 'FROM_EXTRA=2\n', '/nonexistent/token.txt': 's3cr3t' };
    const read: string[] = [];
    Object.assign(w.executor, { readFile: async (path: string, max: number) => { read.push(path); expect(max).toBe(1024 * 1024); return files[path]; } });
    const runs = new RunService({ ...memoryDeps(w, 1), secrets: new BuiltinSecretProvider() });
    const run = await create(runs, 'dotenv: [extra.env]\nsecrets:\n  - name: TOKEN\n    provider: file\n    key: token.txt\nsteps:\n  - name: a\n    command: x\n');
    expect((await runs.drive(keyOf(run))).status.run.status).toBe(RunStatus.Succeeded);
    expect(kinds(w.executor.probes).filter((k) => k === ':dotenv' || k === ':secret')).toEqual([]);
    expect(read).toEqual(['/nonexistent/.env', '/nonexistent/extra.env', '/nonexistent/token.txt']);
    expect(stepEnv).toMatchObject({ FROM_EXTRA: '2', TOKEN: 's3cr3t' });
    expect(stepSecrets).toContain('s3cr3t');
  });

  test('probe identities are unique, also across two drivers of the same run (a crash between them)', async () => {
    const w = world(() => 'hold');
    const yaml = 'steps:\n  - name: a\n    command: x\n    preconditions:\n      - condition: "true"\n';
    const first = engine(w, 1);
    const run = await create(first, yaml);
    void first.drive(keyOf(run)).catch(() => undefined);
    await until(w.store, run, (r) => r.status.run.nodes[0]?.status === NodeStatus.Running);
    w.owners.dead.add('engine-1');
    const done = engine(w, 2).resume(keyOf(run));
    await new Promise((r) => setTimeout(r, 20));
    w.executor.finish('a');
    expect((await done).status.run.status).toBe(RunStatus.Succeeded);
    const dotenv = w.executor.probes.filter((p) => p.identity.probe!.startsWith('dotenv'));
    expect(dotenv).toHaveLength(2); // each driver read the files anew
    const names = w.executor.probes.map((p) => JSON.stringify(p.identity));
    expect(new Set(names).size).toBe(names.length);
  });
});


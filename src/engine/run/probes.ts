/**
 * Probes: the short commands whose result the engine itself needs (preconditions, repeat conditions,
 * backquote substitution, dotenv files, file secrets). They are user code, so they run where the steps
 * run, as executions of the shell launcher, never in the engine's process. Each has its own identity
 * (`probe` = kind, a number and this driver's token): always a new execution, safe to repeat after a
 * crash (a restarted driver asks again rather than adopting a half-read answer).
 */
import type { ExecRequest } from '../../core/ports/executor.js';
import type { DagRunResource } from '../../core/resources.js';
import type { ExecRef } from '../../core/run/state.js';
import type { StepDefinition } from '../../core/spec/types.js';
import type { RunCommand } from '../../core/vars/expand.js';
import type { EngineDeps } from '../deps.js';

export type ProbeKind = 'pre' | 'repeat' | 'eval' | 'env' | 'dotenv' | 'secret';

/** Whose probe it is: a step's execution, or the run's own (dotenv, DAG env, DAG preconditions). */
export interface ProbeOwner {
  step: StepDefinition;
  exec: ExecRef;
}

export interface ProbeCall {
  kind: ProbeKind;
  command: string;
  cwd: string;
  env: Record<string, string>;
  /** Shell argv; the service's default when empty. */
  shell: string[];
  owner?: ProbeOwner | undefined;
  /** Its output never reaches a log (it is a secret). */
  unlogged?: boolean;
  /** Values masked in its logs. */
  secrets?: string[];
}

export interface ProbeResult {
  exitCode: number;
  stdout: string;
}

const PROBE_TIMEOUT_MS = 60_000;
const MAX_PROBE_OUTPUT = 1024 * 1024;

export class Probes {
  private n = 0;
  private readonly token: string;

  constructor(private readonly deps: EngineDeps, private readonly owner: DagRunResource) {
    // The id generator's last digits are random: enough to tell one driver's probes from another's.
    this.token = deps.ids.next().slice(-8);
  }

  async run(call: ProbeCall): Promise<ProbeResult> {
    const launcher = this.deps.launchers.shell;
    if (!launcher) throw new Error('this backend runs no shell commands');
    const req = this.request(call);
    const running = await launcher.ensure(req, { fresh: true });
    if (!running) return { exitCode: 1, stdout: '' };
    const r = await running.result;
    return { exitCode: r.exitCode, stdout: r.output ?? '' };
  }

  /** Backquote substitution for one owner: the command's stdout (trimmed by the caller's rules). */
  runCommand(base: Omit<ProbeCall, 'kind' | 'command'>, kind: ProbeKind = 'env'): RunCommand {
    return async (command) => (await this.run({ ...base, kind, command })).stdout;
  }

  /** The content of the first of these files that can be read, where the steps run; undefined when none. */
  async readFirst(paths: string[], base: Omit<ProbeCall, 'kind' | 'command'> & { kind: ProbeKind }): Promise<string | undefined> {
    if (paths.length === 0) return undefined;
    const local = this.localReader();
    if (local) return firstOf(paths, local);
    const command = paths.map((p) => `cat -- ${shellQuote(p)} 2>/dev/null`).join(' || ');
    const r = await this.run({ ...base, command, shell: ['/bin/sh'] });
    return r.exitCode === 0 ? r.stdout : undefined;
  }

  /**
   * For each group of candidate paths, the content of its first readable file ('' when none), where the
   * steps run: read directly by a local launcher, else all in one probe (one process, or one Pod, for
   * every group), each file followed by a line with the probe's own marker.
   */
  async readEach(groups: string[][], base: Omit<ProbeCall, 'kind' | 'command' | 'shell' | 'unlogged'> & { kind: ProbeKind }): Promise<string[]> {
    const local = this.localReader();
    if (local) return Promise.all(groups.map(async (g) => (await firstOf(g, local)) ?? ''));
    const marker = `--svc-${base.kind}-${this.deps.ids.next()}--`;
    const script = groups.map((g) => `{ ${g.map((c) => `cat -- ${shellQuote(c)} 2>/dev/null`).join(' || ')} || :; }; printf '\\n%s\\n' ${shellQuote(marker)}`).join('; ');
    const r = await this.run({ ...base, command: script, shell: ['/bin/sh'], unlogged: true });
    if (r.exitCode !== 0) throw new Error(`cannot read ${groups.map((g) => g[0]).join(', ')}: exit status ${r.exitCode}`);
    // Each file is followed by a newline and the marker.
    const texts = r.stdout.split(marker);
    return groups.map((_, i) => texts[i] ?? '');
  }

  private localReader(): ((path: string) => Promise<string | undefined>) | undefined {
    const launcher = this.deps.launchers.shell;
    return launcher?.readFile ? (path) => launcher.readFile!(path, MAX_PROBE_OUTPUT) : undefined;
  }

  private request(call: ProbeCall): ExecRequest {
    const exec: ExecRef = call.owner?.exec ?? { node: '', attempt: 0 };
    const probe = `${call.kind}${this.n++}-${this.token}`;
    const { spec, status } = this.owner;
    const shell = call.shell.length > 0 ? call.shell : this.deps.defaultShell;
    return {
      exec, step: call.owner?.step ?? runStep(), commands: [call.command], config: {}, shell, shellExplicit: true, env: call.env, workingDir: call.cwd,
      identity: { dagName: spec.dagName, dagRunId: spec.dagRunId, attemptId: status.attemptId, node: exec.node, attempt: exec.attempt, item: exec.item, probe },
      merged: false, copies: {}, secrets: call.secrets ?? [], maxOutputSize: MAX_PROBE_OUTPUT, timeoutMs: PROBE_TIMEOUT_MS, capture: true,
      ...(call.unlogged ? { unlogged: true } : {}),
    };
  }
}

async function firstOf(paths: string[], read: (path: string) => Promise<string | undefined>): Promise<string | undefined> {
  for (const p of paths) {
    const text = await read(p);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** `'...'` with every `'` closed, escaped and reopened: the shell reads the exact bytes. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The step a run's own probes belong to: a plain shell step with no name. */
function runStep(): StepDefinition {
  return {
    name: '', type: 'shell', commands: [], depends: [], env: [], signalOnStop: 'SIGTERM', mailOnError: false, config: {},
    messages: [], preconditions: [], continueOn: { failure: false, skipped: false, exitCode: [], output: [], markSuccess: false },
  };
}


/** Runs the real `svc` CLI (bin/svc.js over dist/) as a child process against a temp data directory. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..');
export const BIN = join(ROOT, 'bin', 'svc.js');

export interface CliResult { code: number; stdout: string; stderr: string }

export class Sandbox {
  readonly dir = mkdtempSync(join(tmpdir(), 'svc-it-'));
  readonly dataDir = join(this.dir, 'data');
  readonly dagsDir = join(this.dir, 'dags');

  constructor(readonly extraEnv: Record<string, string> = {}) {
    mkdirSync(this.dagsDir, { recursive: true });
  }

  env(): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, HOME: process.env.HOME, SVC_DATA_DIR: this.dataDir, SVC_DAGS_DIR: this.dagsDir, SHELL: '/bin/sh', ...this.extraEnv };
  }

  /** Writes a DAG file into the DAGs directory and returns its path. */
  dag(name: string, yaml: string): string {
    const p = join(this.dagsDir, `${name}.yaml`);
    writeFileSync(p, yaml);
    return p;
  }

  file(rel: string, content: string): string {
    const p = join(this.dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    return p;
  }

  spawn(args: string[]): ChildProcess {
    return spawn(process.execPath, [BIN, ...args], { env: this.env(), cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  run(args: string[]): Promise<CliResult> {
    return collect(this.spawn(args));
  }

  async json<T = any>(args: string[]): Promise<T> {
    const r = await this.run(args);
    if (r.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }
}

export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => { stdout += d; });
  child.stderr?.on('data', (d) => { stderr += d; });
  return new Promise((res) => child.on('close', (code) => res({ code: code ?? -1, stdout, stderr })));
}

export { eventually } from './wait.js';

/**
 * For tests that need a real server (MinIO, sshd, redis-server, PostgreSQL...): describe() that runs the
 * suite when the server is there, skips it loudly when it is not, and under CI=true fails instead of
 * skipping (CI installs every server). And a free loopback port for a server to listen on.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';

/** `what`: the server, as the failing CI test names it ("sshd available"); `reason`: why it is missing, or undefined. */
export function describeWith(what: string, reason: string | undefined, name: string, fn: () => void): void {
  if (!reason) return describe(name, fn);
  if (process.env.CI === 'true') {
    return describe(name, () => {
      test(`${what} available`, () => {
        throw new Error(`CI: ${reason}`);
      });
    });
  }
  process.stderr.write(`\n!!! SKIPPING "${name}": ${reason}\n`);
  describe.skip(name, fn);
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Stops a server process: `signal`, then SIGKILL after `graceMs`; resolves once it has exited. */
export function stopProcess(proc: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    proc.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    proc.kill(signal);
  });
}

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A server binary built by a `hack/<script> --check` script (cached outside the repo), or the path the
 * env var names: `binary` is the path or undefined, `skipReason` why it cannot be used, or undefined.
 */
export function builtServer(what: string, script: string, envVar: string): { binary(): string | undefined; skipReason(): string | undefined } {
  const binary = (): string | undefined => {
    const env = process.env[envVar];
    if (env) return existsSync(env) ? env : undefined;
    const check = spawnSync('bash', [join(repo, 'hack', script), '--check'], { encoding: 'utf8' });
    const path = check.stdout.trim();
    return check.status === 0 && path !== '' ? path : undefined;
  };
  const skipReason = (): string | undefined => {
    if (binary() !== undefined) return undefined;
    return process.env[envVar]
      ? `${envVar}=${process.env[envVar]} does not exist`
      : `no ${what} binary: run hack/${script} (builds it from its Go module in a few minutes) or set ${envVar}`;
  };
  return { binary, skipReason };
}

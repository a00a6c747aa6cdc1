/**
 * For tests that need a real server (MinIO, sshd, redis-server, PostgreSQL...): describe() that runs the
 * suite when the server is there, skips it loudly when it is not, and under CI=true fails instead of
 * skipping (CI installs every server). And a free loopback port for a server to listen on.
 */
import type { ChildProcess } from 'node:child_process';
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

/**
 * The Launcher conformance suite: every launcher adapter runs it (local processes with and without the
 * fork helper, memory; Pods later). Uses jest globals; imported by test files only.
 */
import type { ExecRequest, Launcher } from '../executor.js';

/** How an adapter's test makes executions of a given behaviour, and counts how often one really ran. */
export interface LauncherFixture {
  launcher: Launcher;
  /** A new execution (its own identity) that ends 0 (`ok`), ends 3 (`fail`), or runs until signalled (`hold`). */
  request(what: 'ok' | 'fail' | 'hold'): ExecRequest;
  /** How many times the execution was really started. */
  starts(req: ExecRequest): Promise<number>;
}

export function launcherConformance(name: string, make: () => Promise<LauncherFixture>): void {
  describe(`Launcher conformance: ${name}`, () => {
    let f: LauncherFixture;
    beforeEach(async () => { f = await make(); });

    it('runs a new execution and reports how it ended; it has begun from then on', async () => {
      const ok = f.request('ok');
      const fail = f.request('fail');
      expect(await f.launcher.begun(ok)).toBe(false);
      await expect((await f.launcher.ensure(ok, { fresh: true }))!.result).resolves.toMatchObject({ exitCode: 0 });
      await expect((await f.launcher.ensure(fail, { fresh: true }))!.result).resolves.toMatchObject({ exitCode: 3, error: expect.any(String) });
      expect(await f.launcher.begun(ok)).toBe(true);
      expect(await f.launcher.begun(fail)).toBe(true);
    });

    it('ensure of an execution that ended adopts its outcome and never runs it again', async () => {
      const req = f.request('fail');
      await (await f.launcher.ensure(req, { fresh: true }))!.result;
      const again = await f.launcher.ensure(req, { fresh: false });
      await expect(again!.result).resolves.toMatchObject({ exitCode: 3 });
      expect(await f.starts(req)).toBe(1);
    });

    it('ensure of an execution that still runs adopts it: a signal through either handle ends it, once', async () => {
      const req = f.request('hold');
      const first = (await f.launcher.ensure(req, { fresh: true }))!;
      for (let i = 0; i < 200 && await f.starts(req) === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await f.launcher.begun(req)).toBe(true);
      const adopted = (await f.launcher.ensure(req, { fresh: false }))!;
      adopted.signal('SIGTERM');
      await expect(adopted.result).resolves.toMatchObject({ signal: 'SIGTERM' });
      await expect(first.result).resolves.toMatchObject({ signal: 'SIGTERM' });
      expect(await f.starts(req)).toBe(1);
    });

    it('ensure without `fresh` of an execution that never began starts it', async () => {
      const req = f.request('ok');
      await expect((await f.launcher.ensure(req, { fresh: false }))!.result).resolves.toMatchObject({ exitCode: 0 });
      expect(await f.starts(req)).toBe(1);
    });
  });
}

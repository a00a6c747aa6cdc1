/**
 * The LogStore conformance suite: every adapter runs it (in memory, files; S3 with the Kubernetes
 * backend). Uses jest globals; imported by test files only.
 */
import type { ExecIdentity } from '../../core/naming.js';
import { execLog, runLog, type LogRef, type LogStore } from '../../core/ports/log-store.js';
import { LINE_CUT, MAX_LINE_BYTES, MAX_PAGE_BYTES } from './pager.js';

const exec = (over: Partial<ExecIdentity> = {}): ExecIdentity => ({ dagName: 'etl', dagRunId: 'r1', attemptId: 'a1', node: 'load data', attempt: 0, ...over });
const ten = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);

/** For stores a step can write into: replaces what `ref` names (its file, or `dir` levels up) with a link to `target`. */
export type PlantLink = (logs: LogStore, ref: LogRef, target: string, dirsUp?: number) => Promise<void>;

const bytesOf = (s: string | undefined): number => Buffer.byteLength(s ?? '');

export function logStoreConformance(name: string, make: () => Promise<LogStore>, plant?: PlantLink, secretFile?: () => Promise<string>): void {
  describe(`LogStore conformance: ${name}`, () => {
    let logs: LogStore;
    beforeEach(async () => { logs = await make(); });

    it('cuts a line longer than the line budget and ends a page at the page budget, both ways', async () => {
      const ref = execLog(exec({ node: 'huge' }), 'stdout', false);
      await logs.append(ref, `${'x'.repeat(3 * 1024 * 1024)}\nshort\n`);
      const head = await logs.page(ref, { head: 1 });
      expect(head).toMatchObject({ lineCount: 1, totalLines: 2, hasMore: true });
      expect(head?.content.endsWith(LINE_CUT)).toBe(true);
      expect(bytesOf(head?.content)).toBe(MAX_LINE_BYTES + bytesOf(LINE_CUT));
      expect(await logs.page(ref, { tail: 1 })).toMatchObject({ content: 'short', totalLines: 2 });
      expect(bytesOf((await logs.page(ref, { tail: 2 }))?.content)).toBeLessThanOrEqual(MAX_LINE_BYTES + bytesOf(LINE_CUT) + 6);
      const wide = execLog(exec({ node: 'wide' }), 'stdout', false);
      const line = 'é'.repeat(20_000); // 40,000 bytes: under the line budget, over the page budget 60 times
      await logs.append(wide, `${Array.from({ length: 60 }, () => line).join('\n')}\n`);
      for (const q of [{}, { tail: 60 }, { offset: 2 }]) {
        const p = await logs.page(wide, q);
        expect(bytesOf(p?.content)).toBeLessThanOrEqual(MAX_PAGE_BYTES);
        expect(p).toMatchObject({ totalLines: 60, hasMore: true });
        expect(p?.content.split('\n').every((l) => l === line)).toBe(true);
      }
    });

    if (plant && secretFile) {
      it('never reads or appends through a link planted at a log, outputs.json or a directory', async () => {
        const secret = await secretFile();
        const key = { dagName: 'etl', dagRunId: 'r1' };
        const out = execLog(exec(), 'stdout', false);
        await logs.append(out, 'mine\n');
        await logs.writeOutputs(key, 'a1', { outputs: {} });
        await plant(logs, out, secret);
        expect(await logs.page(out, {})).toBeUndefined();
        expect(await logs.text(out, 100)).toBeUndefined();
        await expect(logs.append(out, 'appended\n')).rejects.toThrow(/link/);
        const run = runLog(key, 'a1');
        await logs.append(run, 'run\n');
        await plant(logs, run, secret, 1); // the attempt's directory
        expect(await logs.page(run, { tail: 1 })).toBeUndefined();
        expect(await logs.readOutputs(key, 'a1')).toBeUndefined();
        await expect(logs.append(run, 'appended\n')).rejects.toThrow(/link/);
        await expect(logs.writeOutputs(key, 'a1', { outputs: {} })).rejects.toThrow(/link/);
      });
    }

    it('a log that was never written is undefined', async () => {
      expect(await logs.page(execLog(exec(), 'stdout', false), {})).toBeUndefined();
      expect(await logs.text(runLog({ dagName: 'etl', dagRunId: 'r1' }, 'a1'), 100)).toBeUndefined();
      expect(await logs.readOutputs({ dagName: 'etl', dagRunId: 'r1' }, 'a1')).toBeUndefined();
    });

    it('appends in order and pages by line while the log grows', async () => {
      const ref = execLog(exec(), 'stdout', false);
      await logs.append(ref, `${ten.slice(0, 4).join('\n')}\nline 5`);
      expect(await logs.page(ref, { tail: 1 })).toEqual({ content: 'line 5', lineCount: 1, totalLines: 5, hasMore: true, isEstimate: false });
      await logs.append(ref, `\n${ten.slice(5).join('\n')}\n`);
      expect(await logs.page(ref, {})).toEqual({ content: ten.join('\n'), lineCount: 10, totalLines: 10, hasMore: false, isEstimate: false });
      expect(await logs.page(ref, { head: 3 })).toMatchObject({ content: 'line 1\nline 2\nline 3', hasMore: true });
      expect(await logs.page(ref, { tail: 2 })).toMatchObject({ content: 'line 9\nline 10', hasMore: true });
      expect(await logs.page(ref, { tail: 50 })).toMatchObject({ lineCount: 10, hasMore: false });
      expect(await logs.page(ref, { offset: 4, limit: 2 })).toMatchObject({ content: 'line 4\nline 5', hasMore: true });
      expect(await logs.page(ref, { offset: 9, limit: 5 })).toMatchObject({ content: 'line 9\nline 10', hasMore: false });
      expect(await logs.page(ref, { offset: 20 })).toMatchObject({ content: '', lineCount: 0, totalLines: 10, hasMore: false });
      expect(await logs.text(ref, 13)).toBe('line 1\nline 2');
    });

    it('blank lines count; an empty log has none', async () => {
      const blank = execLog(exec({ node: 'b' }), 'stdout', false);
      await logs.append(blank, '\n\n\n');
      expect(await logs.page(blank, {})).toMatchObject({ content: '\n\n', lineCount: 3, totalLines: 3 });
      const empty = execLog(exec({ node: 'e' }), 'stdout', false);
      await logs.append(empty, '');
      expect(await logs.page(empty, { tail: 5 })).toMatchObject({ content: '', lineCount: 0, totalLines: 0, hasMore: false });
    });

    it('every step, item, stream and run attempt has its own log; merged streams share one', async () => {
      const refs = [
        execLog(exec(), 'stdout', false), execLog(exec(), 'stderr', false), execLog(exec({ node: 'load_data' }), 'stdout', false),
        execLog(exec({ item: 0 }), 'stdout', false), execLog(exec({ node: 'x', item: 0 }), 'stdout', false), execLog(exec({ node: 'x.item0' }), 'stdout', false),
        execLog(exec({ attemptId: 'a2' }), 'stdout', false), runLog({ dagName: 'etl', dagRunId: 'r1' }, 'a1'),
      ];
      for (const [i, ref] of refs.entries()) await logs.append(ref, `log ${i}\n`);
      for (const [i, ref] of refs.entries()) expect((await logs.page(ref, {}))?.content).toBe(`log ${i}`);
      expect(new Set(refs.map((r) => logs.locate(r))).size).toBe(refs.length);
      expect(logs.locate(refs[0]!)).toBe(logs.locate(execLog(exec(), 'stdout', false)));
      const m = exec({ node: 'merged' });
      await logs.append(execLog(m, 'stdout', true), 'out\n');
      await logs.append(execLog(m, 'stderr', true), 'err\n');
      expect((await logs.page(execLog(m, 'stderr', true), {}))?.content).toBe('out\nerr');
      expect(logs.locate(execLog(m, 'stdout', true))).toBe(logs.locate(execLog(m, 'stderr', true)));
    });

    it('a step\'s retries and repeats append to its one log (the reference behaviour)', async () => {
      await logs.append(execLog(exec(), 'stdout', false), 'first\n');
      await logs.append(execLog(exec({ attempt: 1 }), 'stdout', false), 'second\n');
      expect((await logs.page(execLog(exec({ attempt: 1 }), 'stdout', false), {}))?.content).toBe('first\nsecond');
      expect(logs.locate(execLog(exec({ attempt: 2 }), 'stdout', false))).toBe(logs.locate(execLog(exec(), 'stdout', false)));
    });

    it('keeps multi-byte text whole', async () => {
      const ref = execLog(exec(), 'stderr', false);
      const lines = Array.from({ length: 3000 }, (_, i) => `${i + 1} ${'é'.repeat(i % 40)}`);
      await logs.append(ref, `${lines.join('\n')}\n`);
      expect(await logs.page(ref, { tail: 3 })).toMatchObject({ content: lines.slice(-3).join('\n'), totalLines: 3000 });
      expect(await logs.page(ref, { offset: 1500, limit: 2 })).toMatchObject({ content: lines.slice(1499, 1501).join('\n'), hasMore: true });
    });

    it('outputs.json per attempt round-trips', async () => {
      const key = { dagName: 'etl', dagRunId: 'r1' };
      await logs.writeOutputs(key, 'a1', { outputs: { A: '1' } });
      await logs.writeOutputs(key, 'a2', { outputs: { A: '2' } });
      expect(await logs.readOutputs(key, 'a1')).toEqual({ outputs: { A: '1' } });
      expect(await logs.readOutputs(key, 'a2')).toEqual({ outputs: { A: '2' } });
    });
  });
}

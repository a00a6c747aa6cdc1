import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Demuxer } from './demux.js';
import { ExecOutputs } from './outputs.js';

const frame = (stream: 1 | 2, text: string | Buffer): Buffer => {
  const data = typeof text === 'string' ? Buffer.from(text) : text;
  const head = Buffer.alloc(8);
  head[0] = stream;
  head.writeUInt32BE(data.length, 4);
  return Buffer.concat([head, data]);
};

describe('the multiplexed stream', () => {
  test('frames split and joined anywhere come out whole, each on its stream', () => {
    const all = Buffer.concat([frame(1, 'out-1\n'), frame(2, 'err-1\n'), frame(1, ''), frame(1, 'out-2\n')]);
    for (const cut of [1, 3, 7, 8, 9, 15, all.length - 1]) {
      const got: string[] = [];
      const d = new Demuxer((s, b) => got.push(`${s}:${b.toString()}`));
      d.push(all.subarray(0, cut));
      d.push(all.subarray(cut));
      expect(got).toEqual(['stdout:out-1\n', 'stderr:err-1\n', 'stdout:out-2\n']);
    }
  });

  test('a secret split across frames and a character split across chunks are still masked and whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-demux-'));
    const files = { stdout: join(dir, 'o'), stderr: join(dir, 'e') };
    const out = new ExecOutputs(files, { secrets: ['hunter2'], capture: true, maxOutputSize: 100, unlogged: false });
    const d = new Demuxer((s, b) => out.write(s, b));
    const euro = Buffer.from('€');
    for (const b of [frame(1, 'pw=hun'), frame(1, Buffer.concat([Buffer.from('ter2 '), euro.subarray(0, 1)])), frame(1, Buffer.concat([euro.subarray(1), Buffer.from('\n')])), frame(2, 'e hunter2\n')]) d.push(b);
    const captured = await out.finish();
    expect(readFileSync(files.stdout, 'utf8')).toBe('pw=******* €\n');
    expect(readFileSync(files.stderr, 'utf8')).toBe('e *******\n');
    expect(captured).toEqual({ text: 'pw=******* €\n', overflow: false });
  });
});

import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalRequest } from './local.js';
import { adoptProcess } from './adopt.js';
import { processStartTicks } from './liveness.js';
import { parseExecRecord } from './records.js';

const KEY = 'step.0';

function request(dir: string): LocalRequest {
  return { files: { recordFile: join(dir, 'records'), recordKey: KEY } } as unknown as LocalRequest;
}

/** A detached sh that sleeps, then appends its exit code line, as the step's reaper does. */
async function recorded(dir: string, code: number, late = false): Promise<ReturnType<typeof spawn>> {
  const child = spawn('/bin/sh', ['-c', `sleep 0.3; echo ${KEY} ${code} >> ${join(dir, 'records')}`], { detached: true, stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  appendFileSync(join(dir, 'records'), `${KEY} ${JSON.stringify({ pid: child.pid, startTicks: processStartTicks(child.pid!), ...(late ? { late } : {}) })}\n`);
  return child;
}

describe('adoptProcess', () => {
  test('adopts a live process recorded with its start time, and reads its exit code when it ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    writeFileSync(join(dir, 'records'), 'other.0 {"pid":1}\nother.0 9\n');
    const child = await recorded(dir, 5);
    const adopted = await adoptProcess(request(dir));
    expect(adopted).toBeDefined();
    child.unref();
    await new Promise((r) => child.once('exit', r));
    await expect(adopted!.result).resolves.toMatchObject({ exitCode: 5 });
  });

  test('a record started from Node: the placeholder start, then the late pid; the exit code may come before the pid line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    writeFileSync(join(dir, 'records'), `${KEY} {"pid":0}\n`);
    const child = await recorded(dir, 7, true);
    const adopted = await adoptProcess(request(dir));
    child.unref();
    await new Promise((r) => child.once('exit', r));
    await expect(adopted!.result).resolves.toMatchObject({ exitCode: 7 });
  });

  test('a reused pid (another process start time) is not adopted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    writeFileSync(join(dir, 'records'), `${KEY} ${JSON.stringify({ pid: process.pid, startTicks: '1' })}\n`);
    await expect(adoptProcess(request(dir))).resolves.toBeUndefined();
  });

  test('an execution that ended while the engine was down is read from its exit code line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    writeFileSync(join(dir, 'records'), `${KEY} {"pid":999999999,"startTicks":"1"}\n${KEY} 0\n`);
    const adopted = await adoptProcess(request(dir));
    await expect(adopted!.result).resolves.toEqual({ exitCode: 0 });
  });

  test('no record, or one with neither a live process nor an exit code: nothing to adopt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    await expect(adoptProcess(request(dir))).resolves.toBeUndefined();
    writeFileSync(join(dir, 'records'), `${KEY} {"pid":0}\n`);
    await expect(adoptProcess(request(dir))).resolves.toBeUndefined();
  });
});

describe('parseExecRecord', () => {
  test("the latest start's process and its first complete exit code; other keys, partial and foreign lines ignored", () => {
    const k = (s: string) => s.split('\n').map((l) => (l ? `${KEY} ${l}` : l)).join('\n');
    expect(parseExecRecord(k('{"pid":0}\n3\n{"pid":12,"startTicks":"99","late":true}\n'), KEY)).toEqual({ pid: 12, startTicks: '99', exitCode: 3 });
    expect(parseExecRecord(k('{"pid":12,"startTicks":"99"}\n4'), KEY)).toEqual({ pid: 12, startTicks: '99' });
    // A multi-command step: the second command's start replaces the first's record.
    expect(parseExecRecord(k('{"pid":12,"cmd":0,"startTicks":"99"}\n0\n0\n{"pid":13,"cmd":1}\n5\n'), KEY)).toEqual({ pid: 13, cmd: 1, exitCode: 5 });
    expect(parseExecRecord(`${KEY}x {"pid":5}\nstep.01 7\n`, KEY)).toBeUndefined();
    expect(parseExecRecord(k('garbage\n{"pid":"x"}\n'), KEY)).toEqual({});
  });
});

describe('RecordKeys', () => {
  test('answers from what it read, and reads only what was appended since (a line still being written waits)', async () => {
    const { RecordKeys } = await import('./records.js');
    const dir = mkdtempSync(join(tmpdir(), 'svc-keys-'));
    const f = join(dir, 'records');
    const keys = new RecordKeys();
    expect(keys.has(f, 'a.0')).toBe(false);
    writeFileSync(f, 'a.0 {"pid":0}\nb.0 {"pi');
    expect(keys.has(f, 'a.0')).toBe(true);
    expect(keys.has(f, 'b.0')).toBe(false);
    appendFileSync(f, 'd":0}\nc.0 1\n');
    expect(keys.has(f, 'b.0')).toBe(true);
    expect(keys.has(f, 'c.0')).toBe(true);
    expect(keys.has(f, 'a.')).toBe(false);
  });
});

import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecRequest } from '../../core/ports/executor.js';
import { adoptProcess } from './adopt.js';
import { processStartTicks } from './liveness.js';
import { parseExecRecord } from './records.js';

function request(dir: string): ExecRequest {
  return { files: { recordFile: join(dir, 'x.rec') } } as unknown as ExecRequest;
}

/** A detached sh that sleeps, then appends its exit code to the record, as the step's exit trap does. */
async function recorded(dir: string, code: number): Promise<ReturnType<typeof spawn>> {
  const child = spawn('/bin/sh', ['-c', `sleep 0.3; echo ${code} >> ${join(dir, 'x.rec')}`], { detached: true, stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  appendFileSync(join(dir, 'x.rec'), `${JSON.stringify({ pid: child.pid, startTicks: processStartTicks(child.pid!) })}\n`);
  return child;
}

describe('adoptProcess', () => {
  test('adopts a live process recorded with its start time, and reads its exit record when it ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    const child = await recorded(dir, 5);
    const adopted = await adoptProcess(request(dir));
    expect(adopted).toBeDefined();
    child.unref();
    await new Promise((r) => child.once('exit', r));
    await expect(adopted!.result).resolves.toMatchObject({ exitCode: 5 });
  });

  test('a record started from Node: the placeholder line, then the pid; the exit code may come before the pid line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    writeFileSync(join(dir, 'x.rec'), '{"pid":0}\n');
    const child = await recorded(dir, 7);
    const adopted = await adoptProcess(request(dir));
    child.unref();
    await new Promise((r) => child.once('exit', r));
    await expect(adopted!.result).resolves.toMatchObject({ exitCode: 7 });
  });

  test('a reused pid (another process start time) is not adopted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    writeFileSync(join(dir, 'x.rec'), `${JSON.stringify({ pid: process.pid, startTicks: '1' })}\n`);
    await expect(adoptProcess(request(dir))).resolves.toBeUndefined();
  });

  test('an execution that ended while the engine was down is read from its exit record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    writeFileSync(join(dir, 'x.rec'), '{"pid":999999999,"startTicks":"1"}\n0\n');
    const adopted = await adoptProcess(request(dir));
    await expect(adopted!.result).resolves.toEqual({ exitCode: 0 });
  });

  test('no record, or one with neither a live process nor an exit code: nothing to adopt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    await expect(adoptProcess(request(dir))).resolves.toBeUndefined();
    writeFileSync(join(dir, 'x.rec'), '{"pid":0}\n');
    await expect(adoptProcess(request(dir))).resolves.toBeUndefined();
  });
});

describe('parseExecRecord', () => {
  test('the last real pid with its start time, the first complete exit code; partial and foreign lines ignored', () => {
    expect(parseExecRecord('{"pid":0}\n3\n{"pid":12,"startTicks":"99","startedAt":"x"}\n')).toEqual({ pid: 12, startTicks: '99', exitCode: 3 });
    expect(parseExecRecord('{"pid":12,"startTicks":"99"}\n4')).toEqual({ pid: 12, startTicks: '99' });
    expect(parseExecRecord('{"pid":12,"startTicks":"99"}\n{"pid":13}\n0\n5\n')).toEqual({ pid: 13, exitCode: 0 });
    expect(parseExecRecord('garbage\n{"pid":"x"}\n')).toEqual({});
  });
});

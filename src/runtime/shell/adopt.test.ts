import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecRequest } from '../../core/ports/executor.js';
import { adoptProcess } from './adopt.js';
import { processStartTicks } from './liveness.js';

function request(dir: string): ExecRequest {
  return { files: { pidFile: join(dir, 'x.pid'), exitFile: join(dir, 'x.exit') } } as unknown as ExecRequest;
}

describe('adoptProcess', () => {
  test('adopts a live process recorded with its start time, and reads its exit record when it ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    const child = spawn('/bin/sh', ['-c', `sleep 0.3; echo 5 > ${join(dir, 'x.exit')}`], { detached: true, stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    writeFileSync(join(dir, 'x.pid'), JSON.stringify({ pid: child.pid, startTicks: processStartTicks(child.pid!) }));
    const adopted = await adoptProcess(request(dir));
    expect(adopted).toBeDefined();
    child.unref();
    await new Promise((r) => child.once('exit', r));
    await expect(adopted!.result).resolves.toMatchObject({ exitCode: 5 });
  });

  test('a live process wins over an exit record left by an earlier command of the same step', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    writeFileSync(join(dir, 'x.exit'), '0\n');
    const child = spawn('/bin/sh', ['-c', `sleep 0.3; echo 7 > ${join(dir, 'x.exit')}`], { detached: true, stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    writeFileSync(join(dir, 'x.pid'), JSON.stringify({ pid: child.pid, startTicks: processStartTicks(child.pid!) }));
    const adopted = await adoptProcess(request(dir));
    child.unref();
    await new Promise((r) => child.once('exit', r));
    await expect(adopted!.result).resolves.toMatchObject({ exitCode: 7 });
  });

  test('a reused pid (another process start time) is not adopted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    writeFileSync(join(dir, 'x.pid'), JSON.stringify({ pid: process.pid, startTicks: '1' }));
    await expect(adoptProcess(request(dir))).resolves.toBeUndefined();
  });

  test('an execution that ended while the engine was down is read from its exit record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-adopt-'));
    writeFileSync(join(dir, 'x.exit'), '0\n');
    const adopted = await adoptProcess(request(dir));
    await expect(adopted!.result).resolves.toEqual({ exitCode: 0 });
  });
});

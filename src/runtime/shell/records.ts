/** Process-group signalling and the exit-code record the wrapper writes. */
import { readFile } from 'node:fs/promises';

export function killGroup(pid: number, sig: string): void {
  try {
    process.kill(-pid, sig as NodeJS.Signals);
  } catch {
    try { process.kill(pid, sig as NodeJS.Signals); } catch { /* already gone */ }
  }
}

export async function readExitFile(path: string): Promise<number | undefined> {
  try {
    const m = /^(\d+)\n$/.exec(await readFile(path, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Process-group signalling and the exit-code record the wrapper writes. */
import { readFile } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';

const SIGNALS = osConstants.signals as Record<string, number>;
const SIGNAL_NAMES = new Map(Object.entries(SIGNALS).map(([name, n]) => [n, name]));

export const signalNumber = (sig: string): number => SIGNALS[sig] ?? 15;
export const signalName = (n: number): string => SIGNAL_NAMES.get(n) ?? `SIG${n}`;

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

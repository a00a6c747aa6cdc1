/**
 * Process-group signalling, and the exec record: one file per execution that tells a restarted engine
 * what the previous one started (ADR 0001, 0004). Lines, each written by one write(2):
 *   {"pid":N,"startTicks":"..","startedAt":".."}   the process, written before its command runs
 *                                                  (spawned from Node: {"pid":0} first, the real pid
 *                                                  appended once known)
 *   <code>                                         its exit code, appended by the command's exit trap
 * Appending to the file the process record created costs a fraction of creating a second file.
 */
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

export interface ExecRecord {
  /** The last process line with a real pid. */
  pid?: number;
  startTicks?: string;
  /** The first complete exit-code line (a line still being written is not one). */
  exitCode?: number;
}

export function parseExecRecord(text: string): ExecRecord {
  const rec: ExecRecord = {};
  const lines = text.split('\n');
  lines.pop(); // what follows the last newline is incomplete
  for (const line of lines) {
    if (/^\d+$/.test(line)) {
      rec.exitCode ??= Number(line);
      continue;
    }
    try {
      const p = JSON.parse(line) as { pid?: unknown; startTicks?: unknown };
      if (typeof p.pid === 'number' && p.pid > 0) {
        rec.pid = p.pid;
        if (typeof p.startTicks === 'string' && p.startTicks) rec.startTicks = p.startTicks;
        else delete rec.startTicks;
      }
    } catch { /* not a record line */ }
  }
  return rec;
}

export async function readExecRecord(path: string): Promise<ExecRecord | undefined> {
  try {
    return parseExecRecord(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
}

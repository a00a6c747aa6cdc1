/**
 * Process-group signalling, and the exec records: one file per attempt that tells a restarted engine
 * what the previous one started (ADR 0001, 0008). Every execution appends lines that start with its key,
 * each line one write(2) (appends of one write are whole lines whoever writes them):
 *   <key> {"pid":N,"cmd":I,"startTicks":"..",...}      command I of the step starts: written before it runs
 *                                                       (spawned from Node: {"pid":0} first, then the
 *                                                       real pid as a "late" line once known)
 *   <key> <code>                                        its exit code: appended by whoever reaped it
 *                                                       (the fork server, which outlives a dead engine,
 *                                                       or the engine for a command it spawned)
 * A command of a multi-command step starts a new record for the same key: the latest start counts.
 * One appended file per attempt instead of files per execution: creating a file costs several times an
 * append (0.1-0.6 ms on the CI machine), and this is on every step's critical path.
 */
import { readOwnFileSync } from './no-follow.js';
import { constants as osConstants } from 'node:os';

const SIGNALS = osConstants.signals as Record<string, number>;
/** A number's first name (SIGABRT, not its alias SIGIOT), the one Node's spawn reports. */
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, n] of Object.entries(SIGNALS)) if (!SIGNAL_NAMES.has(n)) SIGNAL_NAMES.set(n, name);

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
  /** The process of the latest command start (its real pid, once known). */
  pid?: number;
  /** Which command of the step that is (index in its command list). */
  cmd?: number;
  startTicks?: string;
  /** The first complete exit code after that start (a line still being written is not one). */
  exitCode?: number;
}

/** The line that starts a command (`late`: the real pid of a start already recorded with pid 0). */
export const processLine = (key: string, p: { pid: number; cmd: number; startTicks?: string; startedAt?: string; late?: boolean }): string => `${key} ${JSON.stringify(p)}\n`;
export const codeLine = (key: string, code: number): string => `${key} ${code}\n`;

/** This execution's record in the attempt's file; undefined when it has no line at all (never started). */
export function parseExecRecord(text: string, key: string): ExecRecord | undefined {
  let rec: ExecRecord | undefined;
  const prefix = `${key} `;
  const lines = text.split('\n');
  lines.pop(); // what follows the last newline is incomplete
  for (const line of lines) {
    if (!line.startsWith(prefix)) continue;
    const body = line.slice(prefix.length);
    rec ??= {};
    if (/^\d+$/.test(body)) {
      rec.exitCode ??= Number(body);
      continue;
    }
    let p: { pid?: unknown; cmd?: unknown; startTicks?: unknown; late?: unknown };
    try { p = JSON.parse(body) as typeof p; } catch { continue; }
    if (p.late !== true) rec = typeof p.cmd === 'number' ? { cmd: p.cmd } : {};
    if (typeof p.pid === 'number' && p.pid > 0) {
      rec.pid = p.pid;
      if (typeof p.startTicks === 'string' && p.startTicks) rec.startTicks = p.startTicks;
    }
  }
  return rec;
}

export async function readExecRecord(path: string, key: string): Promise<ExecRecord | undefined> {
  try {
    return parseExecRecord(readOwnFileSync(path).toString('utf8'), key);
  } catch {
    return undefined;
  }
}

/**
 * Which keys have lines in a records file, read incrementally: asked once per execution a resumed driver
 * starts, it reads only what was appended since the last question (not the whole file every time).
 */
export class RecordKeys {
  private readonly files = new Map<string, { offset: number; rest: string; keys: Set<string> }>();

  constructor(private readonly max = 16) {}

  has(path: string, key: string): boolean {
    let f = this.files.get(path);
    if (f) this.files.delete(path);
    else {
      f = { offset: 0, rest: '', keys: new Set() };
      if (this.files.size >= this.max) this.files.delete(this.files.keys().next().value as string);
    }
    this.files.set(path, f);
    if (!f.keys.has(key)) readNew(path, f);
    return f.keys.has(key);
  }
}

function readNew(path: string, f: { offset: number; rest: string; keys: Set<string> }): void {
  let buf: Buffer;
  try { buf = readOwnFileSync(path, f.offset); } catch { return; } // missing, or planted: no record
  if (buf.length === 0) return;
  f.offset += buf.length;
  const lines = (f.rest + buf.toString('utf8')).split('\n');
  f.rest = lines.pop() ?? '';
  for (const line of lines) {
    const sp = line.indexOf(' ');
    if (sp > 0) f.keys.add(line.slice(0, sp));
  }
}

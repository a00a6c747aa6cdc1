import { readFileSync } from 'node:fs';

/**
 * Whether a process id is alive (signal 0 probes without sending anything). A zombie (killed, not yet
 * reaped by its parent) answers signal 0 but runs nothing: on Linux its /proc state `Z` counts as dead.
 * `startTicks`: alive only if it is still that process (a pid reused after a crash is not the step).
 */
export function isProcessAlive(pid: number, startTicks?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = procStat(pid);
  if (!stat) return true; // no /proc: signal 0 is all there is
  return stat[0] !== 'Z' && (startTicks === undefined || stat[19] === startTicks);
}

/**
 * The start time of a process (field 22 of /proc/<pid>/stat, clock ticks since boot): with the pid it
 * identifies one process, so a pid reused after a crash or reboot is not mistaken for the step.
 * Undefined where /proc is not available.
 */
export function processStartTicks(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/** The fields of /proc/<pid>/stat after the command name (state first). */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

import { readFileSync } from 'node:fs';

/**
 * Whether a process id is alive (signal 0 probes without sending anything). A zombie (killed, not yet
 * reaped by its parent) answers signal 0 but runs nothing: on Linux its /proc state `Z` counts as dead.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/**
 * The start time of a process (field 22 of /proc/<pid>/stat, clock ticks since boot): with the pid it
 * identifies one process, so a pid reused after a crash or reboot is not mistaken for the step.
 * Undefined where /proc is not available.
 */
export function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

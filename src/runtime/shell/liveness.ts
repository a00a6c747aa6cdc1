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

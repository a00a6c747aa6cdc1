/**
 * The processes of a session, read from /proc: a terminal's shell is the leader of its own session, and
 * everything started from it (background jobs in their own process groups included) stays in it unless it
 * calls setsid. Killing the session is how a closed terminal leaves nothing behind.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The session id of a process (field 6 of /proc/<pid>/stat), undefined when it is gone. */
function sessionOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[3]);
  } catch {
    return undefined;
  }
}

export function processesInSession(sid: number): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => sessionOf(pid) === sid);
}

/** A signal to a process (a negative pid: its process group), if it is still there. */
export const signal = (pid: number, sig: NodeJS.Signals): void => {
  try { process.kill(pid, sig); } catch { /* already gone */ }
};

/**
 * SIGKILL to every process of the session. A process may fork while the list is read, so the list is read
 * again until it is empty (a few rounds at most: each round kills what the last one found).
 */
export function killSession(sid: number): void {
  for (let round = 0; round < 5; round++) {
    const pids = processesInSession(sid);
    if (pids.length === 0) return;
    for (const pid of pids) signal(pid, 'SIGKILL');
  }
}

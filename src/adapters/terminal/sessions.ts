/**
 * The processes of a session, read from /proc: a terminal's shell is the leader of its own session, and
 * everything started from it (background jobs in their own process groups included) stays in it unless it
 * calls setsid. Killing the session is how a closed terminal leaves nothing behind.
 */
import { readdirSync, readFileSync } from 'node:fs';

interface Stat { ppid: number; session: number }

/** Parent and session of a process (fields 4 and 6 of /proc/<pid>/stat), undefined when it is gone. */
function statOf(pid: number): Stat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), session: Number(fields[3]) };
  } catch {
    return undefined;
  }
}

function processesWhere(match: (s: Stat) => boolean): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
    const s = statOf(pid);
    return s !== undefined && match(s);
  });
}

export const processesInSession = (sid: number): number[] => processesWhere((s) => s.session === sid);

/** The children of a process (read from every process's parent: /proc/<pid>/task/<pid>/children is optional in kernels). */
export const childrenOf = (pid: number): number[] => processesWhere((s) => s.ppid === pid);

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

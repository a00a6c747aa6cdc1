/**
 * The command lines an ssh step sends to the server (pure). An SSH exec request is one line of text the
 * remote user's login shell runs (`$SHELL -c <line>`), so everything here is quoted for a POSIX shell.
 * - A command runs as written, or as `<shell> -c '<command>'` when config.shell is set.
 * - A script is written to a remote temp file first (read whole from stdin, so a script that reads
 *   stdin itself cannot swallow its own text), then run by the step's command (an interpreter, as for
 *   local shell steps), else config.shell, else its shebang, else /bin/sh; the file is removed when it
 *   ends, also when it is stopped.
 * - A working directory, when the step sets one, is entered first (`cd <dir> && ...`).
 */

/** `s` as one single-quoted POSIX shell word. */
export function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `cd <dir> && `; a leading `~` stays unquoted so the remote shell expands it to the remote home. */
function cdPrefix(dir: string | undefined): string {
  if (!dir) return '';
  if (dir === '~') return 'cd ~ && ';
  return dir.startsWith('~/') ? `cd ~/${quote(dir.slice(2))} && ` : `cd ${quote(dir)} && `;
}

/** The exec line of one command line of the step. */
export function commandLine(command: string, shell?: string, dir?: string): string {
  return cdPrefix(dir) + (shell ? `${shell} -c ${quote(command)}` : command);
}

export interface ScriptRun {
  script: string;
  /** The step's command with a script is its interpreter (`python3`), as for local shell steps. */
  interpreter?: string;
  shell?: string;
  dir?: string;
}

/** How the temp file of a script is run: by the interpreter, the shell, the script's own shebang, or /bin/sh. */
function scriptRunner({ script, interpreter, shell }: ScriptRun): string {
  if (interpreter) return shell ? `${shell} -c ${quote(`${interpreter} "$0"`)} "$f"` : `${interpreter} "$f"`;
  if (shell) return `${shell} "$f"`;
  return script.startsWith('#!') ? '"$f"' : '/bin/sh "$f"';
}

/**
 * The exec line of a script; the script itself goes to the channel's stdin. A stop (a signal to the
 * remote process group) still removes the file: the traps turn the signal into an exit, which runs the
 * EXIT trap; the script's own exit status is the line's exit status.
 */
export function scriptLine(run: ScriptRun): string {
  const body = [
    'f=$(mktemp "${TMPDIR:-/tmp}/svc-ssh.XXXXXXXX") || exit 1',
    `trap 'rm -f "$f"' EXIT`,
    `trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM`,
    'cat > "$f" || exit 1',
    'chmod 700 "$f"',
    `${cdPrefix(run.dir)}${scriptRunner(run)}`,
  ].join('\n');
  return `/bin/sh -c ${quote(body)}`;
}

/** The shell text of config.shell: a string as written, a list's words joined (the remote shell splits them). */
export function shellText(shell: unknown): string | undefined {
  const text = Array.isArray(shell) ? shell.map(String).join(' ') : typeof shell === 'string' ? shell : undefined;
  return text?.trim() ? text.trim() : undefined;
}

/**
 * The remote working directory: only a step's own `dir`/`workingDir` (the DAG's is a local path that the
 * remote host need not have; the reference does the same). One written with a variable is taken after
 * substitution (`resolved`, an absolute path); `~/...` is the remote home; a relative one is relative
 * to the remote login directory.
 */
export function remoteDir(written: string | undefined, resolved: string): string | undefined {
  const dir = written?.trim();
  if (!dir) return undefined;
  return dir.includes('$') ? resolved : dir;
}

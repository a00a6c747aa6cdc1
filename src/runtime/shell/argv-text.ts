/**
 * Keeps a command's text out of its process's argv (ADR 0031). A process's command line is readable by
 * every user of the machine (/proc/<pid>/cmdline), its environment only by the same user
 * (/proc/<pid>/environ is mode 0400): the text svc hands a POSIX shell with `-c` (a step's command, a
 * precondition, a repeat condition, a backquote, a handler), which may hold an expanded secret, travels
 * in the environment instead, and the shell's `-c` argument is a fixed wrapper that takes it out of the
 * environment before it runs a word of it.
 */
import { basename } from 'node:path';

/** The variable the text travels in; the wrapper unsets it, so the command and its children never see it. */
export const TEXT_VAR = 'SVC_COMMAND_TEXT';

/**
 * `eval` runs the text in the shell itself, so `$0`, the positional parameters, `exec`, traps, `exit`,
 * errexit and the exit status are those of `-c`. The value is expanded into eval's argument before the
 * `unset` inside it runs; on the same line, so line numbers stay those of the text.
 */
const WRAPPER = `eval "unset ${TEXT_VAR}; $${TEXT_VAR}"`;

/** Shells whose `-c` text is shell language: `eval` of it means the same. Others keep their argv. */
const POSIX_SHELLS = new Set(['sh', 'bash', 'dash', 'ash', 'ksh', 'mksh', 'zsh', 'yash', 'posh']);

export interface Launch { argv: string[]; env: Record<string, string> }

/**
 * `argv` as built for `shell` (`[...shell, '-c', text, ...args]`): the same execution with the text in
 * the environment. Anything else (no shell, a script file, a shell that is not POSIX) is returned as is.
 */
export function textOutOfArgv(argv: string[], shell: readonly string[], env: Record<string, string>): Launch {
  const at = shell.length;
  if (at === 0 || argv[at] !== '-c' || argv.length <= at + 1 || !POSIX_SHELLS.has(basename(shell[0]!))) return { argv, env };
  const text = argv[at + 1]!;
  return { argv: [...argv.slice(0, at + 1), WRAPPER, ...argv.slice(at + 2)], env: { ...env, [TEXT_VAR]: text } };
}

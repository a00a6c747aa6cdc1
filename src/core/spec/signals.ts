/** Signal names accepted by signalOnStop (Linux names). */
const SIGNALS = new Set([
  'SIGABRT', 'SIGALRM', 'SIGBUS', 'SIGCHLD', 'SIGCONT', 'SIGFPE', 'SIGHUP', 'SIGILL', 'SIGINT', 'SIGIO', 'SIGIOT',
  'SIGKILL', 'SIGPIPE', 'SIGPOLL', 'SIGPROF', 'SIGPWR', 'SIGQUIT', 'SIGSEGV', 'SIGSTKFLT', 'SIGSTOP', 'SIGSYS',
  'SIGTERM', 'SIGTRAP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGURG', 'SIGUSR1', 'SIGUSR2', 'SIGVTALRM', 'SIGWINCH',
  'SIGXCPU', 'SIGXFSZ',
]);

/** `TERM`, `sigterm` and `SIGTERM` all name SIGTERM; undefined for an unknown signal. */
export function canonicalSignal(name: string): string | undefined {
  const upper = name.trim().toUpperCase();
  const full = upper.startsWith('SIG') ? upper : `SIG${upper}`;
  return SIGNALS.has(full) ? full : undefined;
}

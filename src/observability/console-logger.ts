/** A small structured logger for the CLI: one line per event on stderr, quiet below its level. */
import type { EngineLogger } from '../core/ports/engine-ports.js';

const LEVELS = ['debug', 'info', 'warn', 'error'];

export function consoleLogger(level: string, write: (line: string) => void = (l) => process.stderr.write(l)): EngineLogger {
  const min = Math.max(0, LEVELS.indexOf(level));
  const emit = (lvl: string) => (msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS.indexOf(lvl) < min) return;
    const kv = fields ? Object.entries(fields).map(([k, v]) => ` ${k}=${JSON.stringify(v)}`).join('') : '';
    write(`${new Date().toISOString()} ${lvl.toUpperCase()} ${msg}${kv}\n`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/**
 * The service log of `svc server`: one JSON object per line (pino): the level by the name SVC_LOG_LEVEL
 * uses (debug, info, warn, error), an ISO time, pid and hostname, the event's fields, and the message.
 * The server command creates it and passes it in; there is no module-level logger.
 */
import { pino } from 'pino';
import type { LogLevel } from '../config/config.js';
import type { EngineLogger } from '../core/ports/engine-ports.js';

/** `write` gets one complete line per event (pino writes synchronously to it). */
export function jsonLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): EngineLogger {
  const log = pino({
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    // The level's name, not pino's number: the names are what the configuration and the spec use.
    formatters: { level: (label) => ({ level: label }) },
  }, { write });
  return {
    debug: (msg, fields) => log.debug(fields ?? {}, msg),
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
  };
}

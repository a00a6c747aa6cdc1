/**
 * The archive step's settings from its command and expanded config. Paths are relative to the step's
 * working directory; the names as written are kept for what the step prints.
 */
import { resolve } from 'node:path';
import type { ExecRequest } from '../../../core/ports/executor.js';
import { ARCHIVE_COMMANDS } from '../../../core/spec/step-configs/archive.js';
import { StepError } from '../runner.js';
import { formatNamed, type Format } from './format.js';
import { flag, integer, optional, strings } from './values.js';

export type ArchiveCommand = (typeof ARCHIVE_COMMANDS)[number];

export interface Place {
  /** As written in the config (shown in the step's output). */
  name: string;
  /** Absolute. */
  path: string;
}

export interface ArchiveSettings {
  command: ArchiveCommand;
  source: Place;
  /** create: the archive; extract: the directory (default the working directory); list: unused. */
  destination?: Place;
  format?: Format;
  include: string[];
  exclude: string[];
  verifyIntegrity: boolean;
  overwrite: boolean;
  stripComponents: number;
  /** extract: the decompression budget (entries read, bytes written); past either the step fails. */
  maxEntries: number;
  maxBytes: number;
}

/** Defaults of the decompression budget: far above a real archive, far below what fills a disk by surprise. */
export const DEFAULT_MAX_ENTRIES = 100_000;
export const DEFAULT_MAX_BYTES = 10 * 1024 ** 3;

const T = 'archive';

function command(raw: string | undefined): ArchiveCommand {
  const c = (raw ?? '').trim().toLowerCase();
  if ((ARCHIVE_COMMANDS as readonly string[]).includes(c)) return c as ArchiveCommand;
  throw new StepError(`archive step: command must be one of ${ARCHIVE_COMMANDS.join(', ')}${c ? ` (got "${raw?.trim()}")` : ''}`);
}

function place(workingDir: string, name: string | undefined): Place | undefined {
  return name === undefined ? undefined : { name, path: resolve(workingDir, name) };
}

export function archiveSettings(req: ExecRequest): ArchiveSettings {
  const cmd = command(req.commands[0]);
  const c = req.config;
  const source = place(req.workingDir, optional(c, 'source'));
  if (!source) throw new StepError(`archive step: config.source is required for ${cmd}`);
  const destination = place(req.workingDir, optional(c, 'destination'));
  if (cmd === 'create' && !destination) throw new StepError('archive step: config.destination (the archive to write) is required for create');
  const format = optional(c, 'format');
  return {
    command: cmd, source,
    ...(destination ? { destination } : {}),
    ...(format !== undefined ? { format: formatNamed(format) } : {}),
    include: strings(c, 'include', T),
    exclude: strings(c, 'exclude', T),
    verifyIntegrity: flag(c, 'verifyIntegrity', T),
    overwrite: flag(c, 'overwrite', T),
    stripComponents: integer(c, 'stripComponents', T, 0, 0),
    maxEntries: integer(c, 'maxEntries', T, 1, DEFAULT_MAX_ENTRIES),
    maxBytes: integer(c, 'maxBytes', T, 0, DEFAULT_MAX_BYTES),
  };
}

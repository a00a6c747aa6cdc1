/**
 * The `archive` step type (SPEC 2.6): `command` is create, extract or list; config source, destination,
 * include, exclude, format (tar, tar.gz/tgz, zip), verifyIntegrity, overwrite, stripComponents. Paths are
 * relative to the step's working directory. Each command prints one JSON object (see create.ts,
 * extract.ts, list.ts). docs/steps/archive.md is the user's page.
 */
import type { StepRunner } from '../runner.js';
import { createArchive } from './create.js';
import { extractArchive } from './extract.js';
import { listArchive } from './list.js';
import { archiveSettings } from './settings.js';

export const runArchive: StepRunner = async ({ req, io, signal }) => {
  const s = archiveSettings(req);
  if (s.command === 'list') await listArchive(s, io, signal);
  else if (s.command === 'create') await createArchive(s, s.destination!, io, signal);
  else await extractArchive(s, s.destination ?? { name: '.', path: req.workingDir }, io, signal);
  return { exitCode: 0 };
};

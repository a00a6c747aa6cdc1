/** Checks of the files an archive step reads: a clear error for a missing source or a directory given as an archive. */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { StepError } from '../runner.js';
import { fsReason } from './fs-safe.js';
import type { Place } from './settings.js';

/** The source exists; its stats. */
export async function statSource(source: Place): Promise<Stats> {
  try {
    return await stat(source.path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new StepError(`archive step: source ${source.name} does not exist`);
    throw new StepError(`archive step: cannot read source ${source.name}: ${fsReason(e)}`);
  }
}

/** The source is an archive file (extract, list). */
export async function requireArchiveFile(source: Place): Promise<void> {
  const st = await statSource(source);
  if (!st.isFile()) throw new StepError(`archive step: source ${source.name} is not a file (an archive to read)`);
}

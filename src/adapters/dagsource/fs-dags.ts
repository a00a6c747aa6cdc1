/** DAG files on disk: load one file, or find a DAG by name in the DAGs directory. */
import { readFile, stat } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import type { DagSource, LoadedDag } from '../../core/ports/engine-ports.js';
import { checkSpecSize } from '../../core/spec/limits.js';
import { parseDagText } from '../../core/spec/load.js';
import { isSafeDagName } from '../../core/resources.js';

/** Refuses a file over the spec size limit before reading it (the API refuses such a spec too). */
export async function loadDagFile(path: string): Promise<LoadedDag> {
  const abs = resolve(path);
  checkSpecSize(`DAG file ${path}`, (await stat(abs)).size);
  const text = await readFile(abs, 'utf8');
  const { definition, localDags, errors } = parseDagText(text, basename(abs, extname(abs)));
  return { definition, localDags, sourceFile: abs, errors };
}

export class FsDagSource implements DagSource {
  constructor(private readonly dagsDir: string) {}

  async find(name: string): Promise<LoadedDag | undefined> {
    const bare = name.replace(/\.ya?ml$/, '');
    if (!isSafeDagName(bare)) return undefined;
    for (const ext of ['.yaml', '.yml']) {
      try {
        return await loadDagFile(join(this.dagsDir, `${bare}${ext}`));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    return undefined;
  }
}

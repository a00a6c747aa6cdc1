/** DAG files on disk: load one file, or find a DAG by name in the DAGs directory. */
import { readFile } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import type { DagSource, LoadedDag } from '../../core/ports/engine-ports.js';
import { parseDagText } from '../../core/spec/load.js';
import { isSafeDagName } from '../../core/resources.js';

export async function loadDagFile(path: string): Promise<LoadedDag> {
  const abs = resolve(path);
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

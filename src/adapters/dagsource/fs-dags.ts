/** DAG files on disk: load one file, or find a DAG by name in the DAGs directory. */
import { readFile } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import type { DagSource, LoadedDag } from '../../core/ports/engine-ports.js';
import { loadDagText } from '../../core/spec/load.js';
import type { DagDefinition } from '../../core/spec/types.js';
import { isSafeDagName } from '../../core/resources.js';

export async function loadDagFile(path: string): Promise<LoadedDag> {
  const abs = resolve(path);
  const text = await readFile(abs, 'utf8');
  const fileName = basename(abs, extname(abs));
  const loaded = loadDagText(text, { fileName });
  const localDags: Record<string, DagDefinition> = {};
  for (const l of loaded.localDags) if (l.dag) localDags[l.name] = l.dag;
  if (!loaded.dag) return { definition: emptyDag(fileName), localDags, sourceFile: abs, errors: loaded.errors.length ? loaded.errors : ['invalid DAG'] };
  return { definition: loaded.dag, localDags, sourceFile: abs, errors: loaded.errors };
}

function emptyDag(name: string): DagDefinition {
  return { name } as DagDefinition;
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

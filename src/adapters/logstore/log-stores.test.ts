import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { logStoreConformance, type PlantLink } from './conformance.js';
import { FsLogStore } from './fs-log-store.js';
import { MemoryLogStore } from './memory-log-store.js';

const dirs: string[] = [];
afterAll(async () => { await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))); });

logStoreConformance('MemoryLogStore', async () => new MemoryLogStore());
const tempDir = async (): Promise<string> => {
  const d = await mkdtemp(join(tmpdir(), 'svc-logs-'));
  dirs.push(d);
  return d;
};

/** What a step can do in its run directory: replace a file, or a directory holding it, with a link. */
const plant: PlantLink = async (logs, ref, target, dirsUp = 0) => {
  let at = logs.locate(ref);
  for (let i = 0; i < dirsUp; i++) at = dirname(at);
  await rm(at, { recursive: true, force: true });
  await symlink(dirsUp === 0 ? target : dirname(target), at);
};

const secretFile = async (): Promise<string> => {
  const file = join(await tempDir(), 'run.log');
  await writeFile(file, 'the secret\n');
  await writeFile(join(dirname(file), 'outputs.json'), '{"secret": true}');
  return file;
};

logStoreConformance('FsLogStore', async () => {
  const d = await tempDir();
  return new FsLogStore(join(d, 'runs'), (k) => join(d, 'runs', k.dagName, k.dagRunId));
}, plant, secretFile);

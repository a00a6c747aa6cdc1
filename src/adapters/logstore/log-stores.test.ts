import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logStoreConformance } from './conformance.js';
import { FsLogStore } from './fs-log-store.js';
import { MemoryLogStore } from './memory-log-store.js';

const dirs: string[] = [];
afterAll(async () => { await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))); });

logStoreConformance('MemoryLogStore', async () => new MemoryLogStore());
logStoreConformance('FsLogStore', async () => {
  const d = await mkdtemp(join(tmpdir(), 'svc-logs-'));
  dirs.push(d);
  return new FsLogStore((k) => join(d, 'runs', k.dagName, k.dagRunId));
});

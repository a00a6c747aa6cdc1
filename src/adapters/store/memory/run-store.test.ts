import { runStoreConformance } from '../conformance.js';
import { MemoryRunStore } from './run-store.js';

runStoreConformance('MemoryRunStore', async () => new MemoryRunStore());

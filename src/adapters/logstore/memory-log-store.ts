/** The LogStore in memory: for engine unit tests (no disk) and as the conformance suite's reference. */
import type { LogPage, LogQuery, LogRef, LogStore } from '../../core/ports/log-store.js';
import type { RunKey } from '../../core/ports/run-store.js';
import { bufferSource, pageOf } from './pager.js';

const runPart = (k: RunKey, attemptId: string): string => `${k.dagName}/${k.dagRunId}/${attemptId}`;

export class MemoryLogStore implements LogStore {
  private readonly logs = new Map<string, string>();
  private readonly outputs = new Map<string, string>();

  locate(ref: LogRef): string {
    if (ref.kind === 'run') return `memory://${runPart(ref.run, ref.attemptId)}/run.log`;
    const item = ref.exec.item === undefined ? '' : `[${ref.exec.item}]`;
    return `memory://${runPart(ref.exec, ref.exec.attemptId)}/${encodeURIComponent(ref.exec.node)}${item}.${ref.merged ? 'log' : ref.stream}`;
  }

  async append(ref: LogRef, text: string): Promise<void> {
    const at = this.locate(ref);
    this.logs.set(at, (this.logs.get(at) ?? '') + text);
  }

  async page(ref: LogRef, q: LogQuery): Promise<LogPage | undefined> {
    const text = this.logs.get(this.locate(ref));
    return text === undefined ? undefined : pageOf(bufferSource(Buffer.from(text)), q);
  }

  async text(ref: LogRef, maxBytes: number): Promise<string | undefined> {
    const text = this.logs.get(this.locate(ref));
    return text === undefined ? undefined : Buffer.from(text).subarray(0, maxBytes).toString('utf8');
  }

  async writeOutputs(run: RunKey, attemptId: string, body: unknown): Promise<void> {
    this.outputs.set(runPart(run, attemptId), JSON.stringify(body));
  }

  async readOutputs(run: RunKey, attemptId: string): Promise<unknown | undefined> {
    const text = this.outputs.get(runPart(run, attemptId));
    return text === undefined ? undefined : JSON.parse(text);
  }
}

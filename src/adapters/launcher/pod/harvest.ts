/** An execution's end as the engine reads it, the same for step Pods and run-container steps. */
import type { ExecRequest } from '../../../core/ports/executor.js';
import type { ExecResult } from '../../../core/run/state.js';
import { fromEntry, type EntryResult } from './outcome.js';
import type { PodFiles } from './pod-launcher.js';

/**
 * Keeps the outcome (written when the entry could not), then reads `output:` and probes' output from
 * stdout: whole (an unlogged probe, whose file is then removed) or trimmed, within maxOutputSize.
 */
export async function harvestResult(files: PodFiles, req: ExecRequest, r: EntryResult): Promise<ExecResult> {
  if (!(await files.hasResult(req))) await files.writeResult(req, r);
  const result = fromEntry(r);
  if (!req.capture || result.error) return result;
  const text = (await files.readStdout(req, req.maxOutputSize + 1)) ?? '';
  if (req.unlogged) await files.discard(req);
  if (Buffer.byteLength(text) > req.maxOutputSize) return { exitCode: 1, error: `output exceeded maximum size limit (${req.maxOutputSize} bytes)` };
  return { ...result, output: req.unlogged ? text : text.trim() };
}

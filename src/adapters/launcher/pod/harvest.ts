/** An execution's end as the engine reads it, the same for step Pods and run-container steps. */
import type { ExecRequest } from '../../../core/ports/executor.js';
import type { ExecResult } from '../../../core/run/state.js';
import { fromEntry, type EntryResult } from './outcome.js';
import type { PodFiles } from './pod-launcher.js';
import { sealedLength, unseal } from './seal.js';

/**
 * Keeps the outcome (written when the entry could not), then reads `output:` and probes' output from
 * stdout: whole (an unlogged probe, whose file is then removed) or trimmed, within maxOutputSize.
 * `sealKey`: the key with which the entry sealed stdout (an unlogged probe's, seal.ts).
 */
export async function harvestResult(files: PodFiles, req: ExecRequest, r: EntryResult, sealKey?: string): Promise<ExecResult> {
  if (!(await files.hasResult(req))) await files.writeResult(req, r);
  const result = fromEntry(r);
  if (!req.capture || result.error) return result;
  const limit = req.maxOutputSize + 1;
  const raw = (await files.readStdout(req, sealKey === undefined ? limit : sealedLength(limit))) ?? '';
  if (req.unlogged) await files.discard(req);
  if (sealKey !== undefined && raw.length >= sealedLength(limit)) return { exitCode: 1, error: `output exceeded maximum size limit (${req.maxOutputSize} bytes)` };
  let text = raw;
  try {
    if (sealKey !== undefined && raw !== '') text = unseal(raw, sealKey);
  } catch (e) {
    return { exitCode: 1, error: `cannot read the probe's output: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (Buffer.byteLength(text) > req.maxOutputSize) return { exitCode: 1, error: `output exceeded maximum size limit (${req.maxOutputSize} bytes)` };
  return { ...result, output: req.unlogged ? text : text.trim() };
}

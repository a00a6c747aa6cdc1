/** An execution as the process launcher sees it: the request and where its files are on this machine. */
import type { ExecRequest } from '../../core/ports/executor.js';

export interface LocalFiles {
  stdout: string;
  /** Equal to stdout when logOutput is merged. */
  stderr: string;
  /** Copies requested by the step's `stdout:` / `stderr:` fields. */
  stdoutCopy?: string;
  stderrCopy?: string;
  /** The attempt's exec records file (records.ts), and this execution's key in it. */
  recordFile: string;
  recordKey: string;
  /** Directory for generated script files. */
  scratchDir: string;
}

export type LocalRequest = ExecRequest & { files: LocalFiles };

/** Where an execution's logs, records and scratch files are (the local log store's layout, wired in main). */
export type LocalLayout = (req: ExecRequest) => Omit<LocalFiles, 'stdoutCopy' | 'stderrCopy'>;

export function localRequest(req: ExecRequest, layout: LocalLayout): LocalRequest {
  const { stdout, stderr } = req.copies;
  return { ...req, files: { ...layout(req), ...(stdout ? { stdoutCopy: stdout } : {}), ...(stderr ? { stderrCopy: stderr } : {}) } };
}

/** The size limit of a DAG spec: one value for every way a spec comes in (API bodies, DAG files, the CLI). */
import { BadRequestError } from '../errors.js';

/** Largest DAG spec text accepted, in bytes (a DAG is a few kilobytes; the limit keeps parsing cheap). */
export const MAX_SPEC_BYTES = 512 * 1024;

/** Refuses a spec of `bytes` over the limit; `what` names it in the message (a file, `spec`). */
export function checkSpecSize(what: string, bytes: number): void {
  if (bytes > MAX_SPEC_BYTES) {
    throw new BadRequestError(`${what} is ${bytes} bytes, larger than the ${MAX_SPEC_BYTES} bytes (512 KiB) a DAG spec may have`, { bytes, limit: MAX_SPEC_BYTES });
  }
}

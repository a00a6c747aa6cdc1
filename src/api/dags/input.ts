/** Request checks of the DAG routes: every bad input is a 400 bad_request naming the field. */
import type { Request } from 'express';
import { BadRequestError } from '../../core/errors.js';
import { isValidFileName } from '../../core/spec/names.js';
import { isValidRunId } from '../../core/resources.js';
import { show } from '../input.js';

/** Longest fileName accepted in a path (files on disk may be longer than the 40 of new names). */
const MAX_FILE_NAME = 200;


export function fileNameParam(req: Request): string {
  const v = req.params.fileName;
  if (typeof v !== 'string' || v.length > MAX_FILE_NAME || !isValidFileName(v)) {
    throw new BadRequestError(`invalid fileName ${show(String(v))}: must match ^[a-zA-Z0-9_-]+$ (at most ${MAX_FILE_NAME} characters)`);
  }
  return v;
}

export function dagRunIdParam(req: Request): string {
  const v = req.params.dagRunId;
  if (typeof v !== 'string' || (v !== 'latest' && !isValidRunId(v))) {
    throw new BadRequestError(`invalid dagRunId ${show(String(v))}: letters, digits, "_", "." and "-" (at most 64), or latest`);
  }
  return v;
}

/** Request checks of the DAG routes: every bad input is a 400 bad_request naming the field. */
import type { Request } from 'express';
import { BadRequestError } from '../../core/errors.js';
import { isValidFileName } from '../../core/spec/names.js';
import { isValidRunId } from '../../core/resources.js';

/** Longest fileName accepted in a path (files on disk may be longer than the 40 of new names). */
const MAX_FILE_NAME = 200;

const show = (v: string) => JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}...` : v);

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

/** The JSON body as an object ({} when none was sent). */
export function body(req: Request): Record<string, unknown> {
  const b: unknown = req.body;
  if (b === undefined) return {};
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new BadRequestError('the request body must be a JSON object');
  return b as Record<string, unknown>;
}

/** A single string query parameter (undefined when absent); repeated or nested values are refused. */
export function queryString(req: Request, name: string, maxLength = 256): string | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new BadRequestError(`query parameter ${name} must be given once, as a string`);
  if (v.length > maxLength) throw new BadRequestError(`query parameter ${name} is longer than ${maxLength} characters`);
  return v;
}

export function queryInt(req: Request, name: string, dflt: number, min: number, max: number): number {
  const v = queryString(req, name, 20);
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!/^-?\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new BadRequestError(`query parameter ${name} must be an integer from ${min} to ${max}, got ${show(v)}`);
  }
  return n;
}

/** A query parameter that may be repeated (`?tags=a&tags=b`): the values joined with commas. */
export function queryList(req: Request, name: string, maxLength = 1024): string | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  const parts = Array.isArray(v) ? v : [v];
  if (!parts.every((p): p is string => typeof p === 'string')) throw new BadRequestError(`query parameter ${name} must be a string`);
  const joined = parts.join(',');
  if (joined.length > maxLength) throw new BadRequestError(`query parameter ${name} is longer than ${maxLength} characters`);
  return joined;
}

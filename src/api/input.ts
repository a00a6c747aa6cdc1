/** Request checks every router shares: the JSON body, query parameters, quoting a bad value. */
import type { Request } from 'express';
import { BadRequestError } from '../core/errors.js';

/** A bad value as quoted in an error message (at most 80 characters). */
export const show = (v: unknown): string => {
  const s = typeof v === 'string' ? v : String(v);
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}...` : s);
};

/** The JSON body as an object ({} when none was sent). */
export function body(req: Request): Record<string, unknown> {
  return req.body === undefined ? {} : objectBody(req);
}

/** The JSON body, which must be an object. */
export function objectBody(req: Request): Record<string, unknown> {
  const b: unknown = req.body;
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

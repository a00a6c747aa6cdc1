/** Request checks every router shares: the JSON body, query parameters, quoting a bad value. */
import type { Request, RequestHandler } from 'express';
import { BadRequestError } from '../core/errors.js';
import { HttpError } from './errors.js';

/** A bad value as quoted in an error message (at most 80 characters). */
export const show = (v: unknown): string => {
  const s = typeof v === 'string' ? v : String(v);
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}...` : s);
};

/** The JSON body as an object ({} when none was sent). */
export function body(req: Request): Record<string, unknown> {
  return req.body === undefined ? {} : objectBody(req);
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

/** The JSON body, which must be an object (null, a number, a string or an array is JSON, but not one). */
export function objectBody(req: Request): Record<string, unknown> {
  const b: unknown = req.body;
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new BadRequestError(`the request body must be a JSON object, got ${kindOf(b)}`);
  return b as Record<string, unknown>;
}

export const hasBody = (req: Request): boolean => req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;

/**
 * A body express.json did not read (no Content-Type, or one that is not JSON) is refused with 415,
 * never ignored: a start would otherwise run with default params. Not accepted as JSON either: a
 * cross-site page can send such a request without a CORS preflight, and a JSON body can carry a spec.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (req.body !== undefined || !hasBody(req)) return next();
  const type = req.get('content-type');
  const what = type ? `Content-Type ${type.slice(0, 80)} is not JSON` : 'the request has a body but no Content-Type';
  throw new HttpError(415, 'bad_request', `${what}: send the body as JSON with Content-Type: application/json`);
};

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

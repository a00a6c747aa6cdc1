/**
 * The Redis command line of one command spec (the step's config or a pipeline item). Any command runs:
 * the words of `command` come first, then key, keys, field, value, values, fields (name value ...)
 * and args, in that order, which is the argument order of most commands (GET k, HSET k f v, LPUSH k
 * v..., MGET k..., HMGET k f...). A few commands take the reference's named options: SET (ttl, nx,
 * xx), EXPIRE (ttl), ranges (start, stop), ZADD (score), KEYS and SCAN (match, count), pops (count),
 * PUBLISH (channel, message), WITHSCORES (withScores).
 */
import { StepError } from '../runner.js';
import { argList, isGiven, optBool, optInt, optNumber, optString, pairArgs, type Config } from './fields.js';

export interface RedisCommand {
  /** The command name, upper case (`HGETALL`, `CONFIG`). */
  name: string;
  argv: string[];
  /** The reply is a flat list of name, value pairs that renders as a map (HGETALL, CONFIG GET). */
  pairs: boolean;
  /** SCAN: iterate the cursor to the end (match, count); argv is then the options after the cursor. */
  scan?: boolean;
}

const RANGES = new Set(['LRANGE', 'LTRIM', 'ZRANGE', 'ZREVRANGE']);
const POPS = new Set(['LPOP', 'RPOP', 'SPOP', 'SRANDMEMBER', 'ZPOPMIN', 'ZPOPMAX', 'HRANDFIELD', 'ZRANDMEMBER']);

/** Splits a command line on whitespace; single or double quotes group words ("hello world"). */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g)) {
    words.push(m[1] !== undefined ? m[1].replace(/\\(["\\])/g, '$1') : (m[2] ?? m[3] ?? ''));
  }
  return words;
}

/** The generic arguments after the command words, in the documented order. */
function genericArgs(o: Config, path: string): string[] {
  return [
    ...argList(o, 'key', `${path}.key`), ...argList(o, 'keys', `${path}.keys`),
    ...argList(o, 'field', `${path}.field`), ...argList(o, 'value', `${path}.value`),
    ...argList(o, 'values', `${path}.values`), ...pairArgs(o, 'fields', `${path}.fields`),
  ];
}

function setOptions(o: Config, path: string): string[] {
  const ttl = optInt(o, 'ttl', { min: 1 }, `${path}.ttl`);
  const nx = optBool(o, 'nx', `${path}.nx`) === true;
  const xx = optBool(o, 'xx', `${path}.xx`) === true;
  if (nx && xx) throw new StepError(`redis step: ${path}: nx and xx exclude each other`);
  return [...(ttl !== undefined ? ['EX', String(ttl)] : []), ...(nx ? ['NX'] : []), ...(xx ? ['XX'] : [])];
}

function rangeArgs(o: Config, path: string, key: string[], extra: string[]): string[] {
  const start = optInt(o, 'start', {}, `${path}.start`) ?? 0;
  const stop = optInt(o, 'stop', {}, `${path}.stop`) ?? -1;
  return [...key, String(start), String(stop), ...extra];
}

function publishArgs(o: Config, path: string, key: string[], extra: string[]): string[] {
  const channel = optString(o, 'channel', `${path}.channel`) ?? key[0];
  const message = o.message !== undefined ? argList(o, 'message', `${path}.message`) : argList(o, 'value', `${path}.value`);
  if (channel === undefined || message.length === 0) throw new StepError(`redis step: ${path}: PUBLISH needs a channel (or key) and a message (or value)`);
  return [channel, ...message, ...extra];
}

/**
 * The arguments after the command words for the commands with named options; generic otherwise.
 * `inline`: the command line carries its own arguments (`LRANGE l 0 9`), so no defaults are added.
 */
function shapedArgs(name: string, o: Config, path: string, inline: boolean): string[] {
  const key = argList(o, 'key', `${path}.key`);
  const extra = argList(o, 'args', `${path}.args`);
  const ranged = isGiven(o.start) || isGiven(o.stop) || (!inline && extra.length === 0 && !isGiven(o.value));
  if (name === 'SET') return [...genericArgs(o, path), ...setOptions(o, path), ...extra];
  if (name === 'EXPIRE' && isGiven(o.ttl)) return [...key, String(optInt(o, 'ttl', {}, `${path}.ttl`)), ...extra];
  if (RANGES.has(name) && ranged) return rangeArgs(o, path, key, extra);
  if (name === 'ZADD' && isGiven(o.score)) return [...key, String(optNumber(o, 'score', `${path}.score`)), ...argList(o, 'value', `${path}.value`), ...extra];
  if (name === 'KEYS') return inline ? extra : [optString(o, 'match', `${path}.match`) ?? key[0] ?? extra[0] ?? '*'];
  if (name === 'PUBLISH' && !inline) return publishArgs(o, path, key, extra);
  if (POPS.has(name) && isGiven(o.count)) return [...key, String(optInt(o, 'count', { min: 1 }, `${path}.count`)), ...extra];
  return [...genericArgs(o, path), ...extra];
}

/** SCAN's options: MATCH and COUNT (the cursor is the executor's). */
function scanArgs(o: Config, path: string): string[] {
  const match = optString(o, 'match', `${path}.match`) ?? optString(o, 'key', `${path}.key`);
  const count = optInt(o, 'count', { min: 1 }, `${path}.count`);
  return [...(match !== undefined ? ['MATCH', match] : []), ...(count !== undefined ? ['COUNT', String(count)] : []), ...argList(o, 'args', `${path}.args`)];
}

/** The command of a spec whose `command` is `line` (already checked to be there). */
export function buildCommand(line: string, o: Config, path: string): RedisCommand {
  const words = splitCommand(line);
  const name = (words[0] ?? '').toUpperCase();
  if (name === '') throw new StepError(`redis step: ${path}.command is empty`);
  if (!/^[A-Z][A-Z0-9_.|-]*$/.test(name)) throw new StepError(`redis step: "${words[0]}" is not a Redis command name`);
  const sub = (words[1] ?? '').toUpperCase();
  const pairs = name === 'HGETALL' || (name === 'CONFIG' && sub === 'GET');
  if (name === 'SCAN') return { name, argv: [...words.slice(1), ...scanArgs(o, path)], pairs: false, scan: true };
  const withScores = optBool(o, 'withScores', `${path}.withScores`) === true ? ['WITHSCORES'] : [];
  return { name, argv: [name, ...words.slice(1), ...shapedArgs(name, o, path, words.length > 1), ...withScores], pairs };
}

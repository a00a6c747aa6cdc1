/**
 * Runs a step's action on a connected client and returns the reply (render.ts): one command, a
 * pipeline (batched; a transaction with MULTI/EXEC, WATCH first when asked), or a Lua script (EVALSHA
 * first, EVAL when the server does not have it cached). KEYS and SCAN in cluster mode ask every master.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Cluster } from 'ioredis';
import { StepError } from '../runner.js';
import type { RedisCommand } from './argv.js';
import type { Client } from './connect.js';
import type { Action } from './plan.js';
import { ErrorReply, toReply, type Reply } from './render.js';

export interface ActionResult {
  reply: Reply;
  /** The commands of a pipeline that failed (the step fails after printing all results). */
  failures: string[];
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
const SAME_SLOT = /same slots? allocation group|same slot/i;

/** A reply error of Redis (WRONGTYPE, ERR unknown command ...) names the command; others pass through. */
function commandError(name: string, e: unknown): Error {
  if (e instanceof StepError) return e;
  const msg = messageOf(e);
  // Errors of the server start with an upper-case code (ERR, WRONGTYPE, NOSCRIPT, CROSSSLOT, MOVED ...).
  return /^[A-Z]{2,}[A-Z_]*\b/.test(msg) ? new StepError(`redis step: ${name} failed: ${msg}`) : (e as Error);
}

const isCluster = (c: Client): c is Cluster => c instanceof Cluster;

/** The masters to ask for keys: each master of a cluster, or the one server. */
function keyHolders(client: Client): Client[] {
  return isCluster(client) ? client.nodes('master') : [client];
}

async function scanAll(client: Client, options: string[]): Promise<Reply> {
  const keys = new Set<string>();
  for (const node of keyHolders(client)) {
    let cursor = '0';
    do {
      const [next, batch] = (await node.call('SCAN', cursor, ...options)) as [string, string[]];
      for (const k of batch) keys.add(k);
      cursor = next;
    } while (cursor !== '0');
  }
  return [...keys];
}

async function single(client: Client, cmd: RedisCommand): Promise<Reply> {
  try {
    if (cmd.scan) return await scanAll(client, cmd.argv);
    if (cmd.name === 'KEYS' && isCluster(client)) {
      const all = await Promise.all(keyHolders(client).map((n) => n.call('KEYS', ...cmd.argv.slice(1)) as Promise<string[]>));
      return all.flat();
    }
    const [name, ...args] = cmd.argv;
    return toReply(await client.call(name!, ...args), cmd.pairs);
  } catch (e) {
    throw commandError(cmd.name, e);
  }
}

type Results = Array<[Error | null, unknown]>;

function collect(commands: RedisCommand[], results: Results): ActionResult {
  const failures: string[] = [];
  const reply = results.map(([err, value], i): Reply => {
    if (!err) return toReply(value, commands[i]!.pairs);
    failures.push(`command ${i + 1} (${commands[i]!.name}): ${err.message}`);
    return new ErrorReply(err.message);
  });
  return { reply, failures };
}

/**
 * A cluster pipelines only keys of one slot; a pipeline of the step may span nodes, so there its
 * commands go one after another, each to its node (same results, one round trip each).
 */
async function oneByOne(client: Cluster, commands: RedisCommand[]): Promise<Results> {
  const results: Results = [];
  for (const c of commands) {
    results.push(await client.call(c.argv[0]!, ...c.argv.slice(1)).then((v): [null, unknown] => [null, v], (e: unknown): [Error, unknown] => [asError(e), undefined]));
  }
  return results;
}

async function pipeline(client: Client, commands: RedisCommand[]): Promise<ActionResult> {
  if (isCluster(client)) return collect(commands, await oneByOne(client, commands));
  const p = client.pipeline();
  for (const c of commands) p.call(c.argv[0]!, ...c.argv.slice(1));
  const results = await p.exec();
  return collect(commands, (results ?? []) as Results);
}

async function transaction(client: Client, commands: RedisCommand[], watch: string[]): Promise<ActionResult> {
  if (watch.length > 0) await client.call('WATCH', ...watch);
  const m = client.multi();
  for (const c of commands) m.call(c.argv[0]!, ...c.argv.slice(1));
  let results: Results | null;
  try {
    results = (await m.exec()) as Results | null;
  } catch (e) {
    if (SAME_SLOT.test(messageOf(e))) throw new StepError(`redis step: in cluster mode a transaction's keys must hash to one slot (give them a common {hash tag}): ${messageOf(e)}`);
    // EXECABORT: a command was refused while queuing (unknown command, wrong arity); nothing ran.
    const previous = (e as { previousErrors?: Error[] }).previousErrors ?? [];
    const why = previous.length > 0 ? `: ${previous.map((x) => x.message).join('; ')}` : '';
    throw new StepError(`redis step: the transaction was discarded, nothing ran: ${messageOf(e)}${why}`);
  }
  if (results === null) throw new StepError(`redis step: the transaction did not run: a watched key changed (${watch.join(', ')})`);
  return collect(commands, results);
}

async function scriptSource(action: Extract<Action, { kind: 'script' }>, workingDir: string): Promise<string | undefined> {
  if (action.source !== undefined) return action.source;
  if (action.file === undefined) return undefined;
  try {
    return await readFile(resolve(workingDir, action.file), 'utf8');
  } catch (e) {
    throw new StepError(`redis step: config.scriptFile: cannot read ${action.file}: ${messageOf(e)}`);
  }
}

async function script(client: Client, action: Extract<Action, { kind: 'script' }>, workingDir: string): Promise<Reply> {
  const source = await scriptSource(action, workingDir);
  const sha = action.sha ?? createHash('sha1').update(source ?? '').digest('hex');
  const tail = [String(action.keys.length), ...action.keys, ...action.args];
  try {
    return toReply(await client.call('EVALSHA', sha, ...tail));
  } catch (e) {
    if (!/^NOSCRIPT/.test(messageOf(e))) throw commandError('EVALSHA', e);
    if (source === undefined) throw new StepError(`redis step: no script with SHA1 ${sha} is loaded on the server (give config.script or config.scriptFile to load it)`);
  }
  try {
    return toReply(await client.call('EVAL', source, ...tail));
  } catch (e) {
    throw commandError('EVAL', e);
  }
}

export async function execute(client: Client, action: Action, workingDir: string): Promise<ActionResult> {
  if (action.kind === 'command') return { reply: await single(client, action.command), failures: [] };
  if (action.kind === 'script') return { reply: await script(client, action, workingDir), failures: [] };
  return action.multi ? transaction(client, action.commands, action.watch) : pipeline(client, action.commands);
}

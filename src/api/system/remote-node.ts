/**
 * `remoteNode` (SPEC 2.1): a request naming a configured node other than `local` is forwarded to that
 * node (method, path under /api/v2, query without remoteNode, body, Authorization) and its status,
 * content type and body are returned as they are. An unknown node is a 400 that names it.
 */
import type { Request, RequestHandler } from 'express';
import { BadRequestError } from '../../core/errors.js';
import type { RemoteForwarder } from '../../core/ports/remote-forwarder.js';
import { queryString, show } from '../input.js';

export interface RemoteNode {
  name: string;
  /** Base URL of the node's API, including /api/v2. */
  apiBaseURL: string;
  /** Sent as `Authorization: Bearer <authToken>`; without it the caller's Authorization is passed on. */
  authToken?: string;
}

export interface RemoteNodeDeps {
  nodes: readonly RemoteNode[];
  forwarder: RemoteForwarder;
}

export const LOCAL_NODE = 'local';
const MAX_BODY = 5 * 1024 * 1024;

function nodeName(req: Request): string | undefined {
  const raw = queryString(req, 'remoteNode', 128);
  return raw === undefined || raw === '' || raw === LOCAL_NODE ? undefined : raw;
}

/**
 * A path the access policy checked must be the path the node serves: a dot segment or an encoded dot,
 * slash or backslash would be resolved (by the URL parser here, or a proxy there) into another route,
 * such as an admin-only one the caller's role was never checked for. Refused, never normalised.
 */
const UNSAFE_SEGMENT = /^\.{1,2}$/;
const UNSAFE_CHARS = /%2e|%2f|%5c|\\/i;

function checkedPath(path: string): string {
  if (UNSAFE_CHARS.test(path) || path.split('/').some((s) => UNSAFE_SEGMENT.test(s))) {
    throw new BadRequestError(`the path ${show(path)} has a dot segment or an encoded dot, slash or backslash: it is not forwarded to a remote node`);
  }
  return path;
}

/** Path and query as the client sent them (encoding kept), without remoteNode. */
function target(req: Request, base: string): string {
  const q = req.url.indexOf('?');
  const path = checkedPath(q < 0 ? req.url : req.url.slice(0, q));
  const params = new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1));
  params.delete('remoteNode');
  const qs = params.toString();
  const url = `${base}${path}${qs ? `?${qs}` : ''}`;
  // What goes out is exactly what the policy saw: the URL parser changes nothing of the path.
  if (new URL(url).pathname !== `${new URL(base).pathname}${path}`) throw new BadRequestError(`the path ${show(path)} is not forwarded as written`);
  return url;
}

async function bodyOf(req: Request): Promise<Uint8Array | undefined> {
  if (req.body !== undefined) return Buffer.from(JSON.stringify(req.body));
  if (req.readableEnded || !(Number(req.get('content-length')) > 0 || req.get('transfer-encoding'))) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) throw new BadRequestError('request body too large to forward');
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

function headersFor(req: Request, node: RemoteNode): Record<string, string> {
  // This server refused a cross-site request already: the node hears the request as from a script.
  const h: Record<string, string> = { accept: req.get('accept') ?? '*/*', 'x-requested-with': 'svc-remote-node' };
  const type = req.get('content-type');
  if (type) h['content-type'] = req.body !== undefined ? 'application/json' : type;
  const auth = node.authToken ? `Bearer ${node.authToken}` : req.get('authorization');
  if (auth) h.authorization = auth;
  return h;
}

export function remoteNodeHandler(d: RemoteNodeDeps): RequestHandler {
  const byName = new Map(d.nodes.map((n) => [n.name, n]));
  return async (req, res, next) => {
    const name = nodeName(req);
    if (name === undefined) return next();
    const node = byName.get(name);
    if (!node) {
      const known = [LOCAL_NODE, ...byName.keys()].join(', ');
      throw new BadRequestError(`unknown remote node ${JSON.stringify(name)}: configured nodes are ${known}`, { remoteNode: name });
    }
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    const up = await d.forwarder.forward({
      method: req.method, url: target(req, node.apiBaseURL), headers: headersFor(req, node), body: await bodyOf(req), signal: abort.signal,
    });
    res.status(up.status).set(up.headers).set('X-Svc-Remote-Node', node.name);
    try {
      for await (const chunk of up.body) res.write(chunk);
      res.end();
    } catch {
      res.destroy(); // the status is sent already: a cut body is all that can signal the failure
    }
  };
}

/**
 * Registry credentials for a pull (SPEC 2.2 `registryAuths`): the DAG's map of registry host to username
 * and password, else the DOCKER_AUTH_CONFIG environment variable, which carries a Docker client config
 * ({"auths": {"<host>": {"auth": base64("user:password")}}} or username and password fields per host).
 */
export interface RegistryAuth {
  username: string;
  password: string;
  serveraddress: string;
}

export type RegistryAuths = Record<string, { username: string; password: string }>;

/** The registry host of an image reference: its first part when that names a host, else Docker Hub. */
export function registryOf(image: string): string {
  const slash = image.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = image.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : 'docker.io';
}

/** Hosts written as URLs or with Docker Hub's aliases compare as the bare host. */
function normalHost(host: string): string {
  const bare = host.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
  return ['index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com'].includes(bare) ? 'docker.io' : bare;
}

/** Credentials for pulling `image`, or undefined when none are configured for its registry. */
export function authFor(image: string, dagAuths: RegistryAuths | undefined, envConfig: string | undefined): RegistryAuth | undefined {
  const host = registryOf(image);
  const found = lookup(dagAuths ?? {}, host) ?? lookup(parseAuthConfig(envConfig), host);
  return found ? { ...found, serveraddress: host } : undefined;
}

function lookup(auths: RegistryAuths, host: string): { username: string; password: string } | undefined {
  for (const [k, v] of Object.entries(auths)) if (normalHost(k) === host) return v;
  return undefined;
}

/** DOCKER_AUTH_CONFIG's entries; a value that is not such JSON is an error that says so (never echoing it). */
export function parseAuthConfig(text: string | undefined): RegistryAuths {
  if (!text) return {};
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { throw new Error('DOCKER_AUTH_CONFIG is not valid JSON'); }
  const auths = isObj(doc) && isObj(doc.auths) ? doc.auths : doc;
  if (!isObj(auths)) throw new Error('DOCKER_AUTH_CONFIG must be a JSON object with an "auths" map');
  const out: RegistryAuths = {};
  for (const [host, entry] of Object.entries(auths)) {
    const creds = isObj(entry) ? credentials(entry) : undefined;
    if (creds) out[host] = creds;
  }
  return out;
}

function credentials(entry: Record<string, unknown>): { username: string; password: string } | undefined {
  if (typeof entry.username === 'string' && typeof entry.password === 'string') return { username: entry.username, password: entry.password };
  if (typeof entry.auth !== 'string') return undefined;
  const plain = Buffer.from(entry.auth, 'base64').toString('utf8');
  const colon = plain.indexOf(':');
  return colon > 0 ? { username: plain.slice(0, colon), password: plain.slice(colon + 1) } : undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A postgres `dsn`: a `postgres://` / `postgresql://` URL, or libpq's `key=value` form (values may be
 * single-quoted, with `\'` and `\\`), which is turned into the URL form the driver reads, so both take
 * the same options (sslmode, application_name, a unix socket directory as `host`...). The password is
 * kept aside to be masked in everything the step writes, declared as a secret or not; messages name
 * the server as host:port/database, never the DSN.
 */
import { StepError } from '../runner.js';

export interface PgTarget {
  connectionString: string;
  /** The password as written and as it appears percent-encoded: values to mask. */
  secrets: string[];
  /** host:port/database, for messages. */
  label: string;
}

const URL_FORM = /^postgres(ql)?:\/\//i;
const PAIR = /\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:'((?:\\.|[^'\\])*)'|([^\s']*))/y;

/** libpq key=value pairs; undefined when the text is not of that form. */
export function parsePairs(text: string): Map<string, string> | undefined {
  const pairs = new Map<string, string>();
  PAIR.lastIndex = 0;
  while (PAIR.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(PAIR.lastIndex))) break;
    const m = PAIR.exec(text);
    if (!m) return undefined;
    pairs.set(m[1]!.toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!);
  }
  return pairs.size > 0 ? pairs : undefined;
}

/** The URL form of key=value pairs; a socket directory as host goes in the query, as the driver reads it. */
function pairsToUrl(pairs: Map<string, string>): string {
  const enc = encodeURIComponent;
  const take = (k: string): string => { const v = pairs.get(k) ?? ''; pairs.delete(k); return v; };
  const user = take('user');
  const password = take('password');
  const host = take('host') || take('hostaddr');
  const port = take('port');
  const db = take('dbname');
  const query = new URLSearchParams();
  if (host.startsWith('/')) query.set('host', host);
  for (const [k, v] of pairs) query.set(k, v);
  const auth = user || password ? `${enc(user)}${password ? `:${enc(password)}` : ''}@` : '';
  const hostPart = host.startsWith('/') || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const q = query.toString();
  return `postgres://${auth}${hostPart}${port ? `:${port}` : ''}/${enc(db)}${q ? `?${q}` : ''}`;
}

export function parseDsn(dsn: string): PgTarget {
  const text = dsn.trim();
  let connectionString = text;
  if (!URL_FORM.test(text)) {
    const pairs = parsePairs(text);
    if (!pairs) throw new StepError('postgres step: config.dsn must be a postgres:// URL or key=value pairs (host=... dbname=...)');
    connectionString = pairsToUrl(pairs);
  }
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new StepError('postgres step: config.dsn is not a valid postgres:// URL');
  }
  const raw = url.password;
  // As written too: URL parsing percent-encodes what the user may have left plain (a space, say).
  const written = /^[^:]*:\/\/([^/?#]*)@/.exec(connectionString)?.[1]?.split(':').slice(1).join(':') ?? '';
  let password = raw;
  try {
    password = decodeURIComponent(raw);
  } catch {
    // Not percent-encoded text: mask it as written.
  }
  const socket = url.searchParams.get('host');
  const host = socket || url.hostname || 'localhost';
  const db = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default database)';
  return {
    connectionString,
    secrets: [...new Set([password, raw, written, encodeURIComponent(password)].filter((s) => s !== ''))],
    label: `${host}:${url.port || '5432'}/${db}`,
  };
}

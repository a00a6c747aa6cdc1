/**
 * Which Host headers the server answers (pure). An entry is a name (`svc.example.com`), a domain
 * (`.example.com`: the name and every name under it) or `*` (every Host). IP literals always pass: a
 * browser reaches an address only under that address's own origin, so an IP Host is never a page of
 * another name rebound onto this server.
 */
import { isIP } from 'node:net';

/** The host name of a Host header, lowercase, without port, brackets or a trailing dot; undefined when malformed. */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const h = header.trim().toLowerCase();
  const m = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(h) ?? /^([^:[\]/\s@]+)(?::\d{1,5})?$/.exec(h);
  return m?.[1]?.replace(/\.$/, '');
}

export function hostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  const name = hostName(header);
  if (name === undefined || name === '') return false;
  if (isIP(name) !== 0) return true;
  return allowed.some((a) => a === '*' || a === name || (a.startsWith('.') && (name.endsWith(a) || name === a.slice(1))));
}

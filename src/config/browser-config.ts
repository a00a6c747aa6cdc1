/**
 * `server.allowedHosts` (SVC_ALLOWED_HOSTS, comma-separated): the Host names the server answers. A
 * browser page on an attacker's name that resolves to this server (DNS rebinding) sends that name as its
 * Host; answering only known names keeps such a page out. Default: the localhost names, and SVC_HOST
 * when it is a name rather than an address. IP literals are always answered (a page can only reach an
 * address under that address's own origin, so an IP Host is no rebinding). `*` answers every Host (for a
 * proxy in front that checks Host itself); `.example.com` answers that name and every name under it.
 */
import { at, ConfigError, text } from './values.js';

export const LOCAL_HOSTS = ['localhost', '.localhost'] as const;

const NAME = /^(\.|\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/;

function entries(v: unknown): string[] | undefined {
  if (v === undefined || v === '') return undefined;
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new ConfigError('server.allowedHosts must be a list of host names (SVC_ALLOWED_HOSTS: comma-separated)');
}

function normal(entry: string): string {
  const e = entry.toLowerCase();
  if (e === '*') return e;
  if (!NAME.test(e)) throw new ConfigError(`SVC_ALLOWED_HOSTS: "${entry}" is not a host name (no port, no scheme; "*" or ".example.com" for a domain)`);
  return e.startsWith('*.') ? e.slice(1) : e;
}

const isName = (host: string): boolean => NAME.test(host.toLowerCase()) && !/^[\d.]+$/.test(host);

export function loadAllowedHosts(env: NodeJS.ProcessEnv, file: Partial<Record<string, unknown>>, host: string): readonly string[] {
  const given = entries(text(env.SVC_ALLOWED_HOSTS) ?? at(file, 'server.allowedHosts'));
  const own = isName(host) ? [host.toLowerCase()] : [];
  return Object.freeze([...new Set([...LOCAL_HOSTS, ...own, ...(given ?? []).map(normal)])]);
}

/** Tags (SPEC 2.9): parsing of the six YAML forms, validation, formatting, and the filter expression. */
import type { Tag } from './types.js';
import type { Problems } from './errors.js';
import { at, idx } from './errors.js';
import { isObj, scalarText } from './values.js';
import { wildcardMatch } from './wildcard.js';

const KEY = /^[a-z0-9][a-z0-9_.-]{0,62}$/;
const VALUE = /^[a-z0-9_./-]{0,255}$/;

export function formatTag(tag: Tag): string {
  return tag.value === undefined ? tag.key : `${tag.key}=${tag.value}`;
}

/** `env=prod` or `critical`, lowercased; undefined value for a plain label. */
function tagFromText(text: string): Tag {
  const t = text.trim().toLowerCase();
  const eq = t.indexOf('=');
  return eq < 0 ? { key: t } : { key: t.slice(0, eq).trim(), value: t.slice(eq + 1).trim() };
}

function tagFromEntry(key: string, value: unknown): Tag {
  const text = scalarText(value);
  const k = key.trim().toLowerCase();
  return text === undefined ? { key: k } : { key: k, value: text.trim().toLowerCase() };
}

/** Why a tag is invalid, or undefined. */
export function tagProblem(tag: Tag): string | undefined {
  if (!KEY.test(tag.key)) {
    return `invalid tag key "${tag.key}": 1-63 letters, digits, "-", "_" or ".", starting with a letter or digit`;
  }
  if (tag.value !== undefined && !VALUE.test(tag.value)) {
    return `invalid tag value "${tag.value}": at most 255 letters, digits, "-", "_", "." or "/"`;
  }
  return undefined;
}

/** Collects [path, tag] pairs from any of the YAML forms; items of other types were reported by the schema. */
function collect(raw: unknown, path: string): Array<[string, Tag]> {
  if (typeof raw === 'string') {
    return raw.split(/[\s,]+/).filter((w) => w !== '').map((w) => [path, tagFromText(w)]);
  }
  if (isObj(raw)) return Object.entries(raw).map(([k, v]) => [at(path, k), tagFromEntry(k, v)]);
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item, i): Array<[string, Tag]> => {
    if (typeof item === 'string') return [[idx(path, i), tagFromText(item)]];
    if (isObj(item)) return Object.entries(item).map(([k, v]) => [idx(path, i), tagFromEntry(k, v)]);
    return [];
  });
}

/** Parses `tags` in any form; invalid tags are reported, duplicates dropped. */
export function parseTags(raw: unknown, path: string, problems: Problems): Tag[] {
  const out: Tag[] = [];
  const seen = new Set<string>();
  for (const [where, tag] of collect(raw, path)) {
    const problem = tagProblem(tag);
    if (problem) {
      problems.add(where, problem);
      continue;
    }
    const text = formatTag(tag);
    if (!seen.has(text)) {
      seen.add(text);
      out.push(tag);
    }
  }
  return out;
}

export type TagFilterTerm =
  | { kind: 'has'; key: string }
  | { kind: 'equals'; key: string; value: string }
  | { kind: 'absent'; key: string };

/** Terms combined with AND; an empty filter matches everything. */
export interface TagFilter {
  terms: TagFilterTerm[];
}

const FILTER_KEY = /^[a-z0-9_.*?-]{1,63}$/;
const FILTER_VALUE = /^[a-z0-9_./*?-]{0,255}$/;

function parseTerm(term: string): TagFilterTerm | string {
  if (term.startsWith('!')) {
    const key = term.slice(1).trim();
    return FILTER_KEY.test(key) ? { kind: 'absent', key } : `invalid tag filter term "${term}"`;
  }
  const eq = term.indexOf('=');
  const key = (eq < 0 ? term : term.slice(0, eq)).trim();
  if (!FILTER_KEY.test(key)) return `invalid tag filter term "${term}"`;
  if (eq < 0) return { kind: 'has', key };
  const value = term.slice(eq + 1).trim();
  return FILTER_VALUE.test(value) ? { kind: 'equals', key, value } : `invalid tag filter term "${term}"`;
}

/** Parses `env=prod,!deprecated,team*` (comma-separated, AND, case-insensitive, `*` and `?` wildcards). */
export function parseTagFilter(expr: string): TagFilter | { error: string } {
  const terms: TagFilterTerm[] = [];
  for (const raw of expr.toLowerCase().split(',')) {
    const term = raw.trim();
    if (term === '') continue;
    const parsed = parseTerm(term);
    if (typeof parsed === 'string') return { error: parsed };
    terms.push(parsed);
  }
  return { terms };
}

function termMatches(tags: Tag[], term: TagFilterTerm): boolean {
  const key = (t: Tag): boolean => wildcardMatch(term.key, t.key);
  if (term.kind === 'absent') return !tags.some(key);
  if (term.kind === 'has') return tags.some(key);
  return tags.some((t) => key(t) && t.value !== undefined && wildcardMatch(term.value, t.value));
}

/** Whether tags satisfy every term of the filter. */
export function matchesTagFilter(tags: Tag[], filter: TagFilter): boolean {
  return filter.terms.every((term) => termMatches(tags, term));
}

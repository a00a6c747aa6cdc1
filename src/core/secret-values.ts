/**
 * Whether a text carries a secret value, however svc serialised it. A value that reaches a Pod (its env,
 * its command list) may be JSON (the request of an svc-code step, the command argv list), possibly a JSON
 * string inside JSON, or a shell word: a secret holding `"`, `\`, a newline or `'` is then not a substring
 * of the text. So the text is compared as it is, in the escaped forms svc writes (JSON string, single-quoted
 * shell word), and, when it parses as JSON, on every decoded string in it (keys too), recursively.
 */
import { maskSecrets } from './vars/mask.js';

/** The forms in which svc writes a value into a larger text. */
export function secretForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const twice = JSON.stringify(json).slice(1, -1);
  const shell = secret.replace(/'/g, `'\\''`);
  return [...new Set([secret, json, twice, shell])];
}

const MAX_DEPTH = 8;

function decodedStrings(value: unknown, out: string[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) decodedStrings(v, out, depth + 1);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      decodedStrings(v, out, depth + 1);
    }
  }
}

function parsed(text: string): unknown {
  const t = text.trim();
  if (!/^[[{"]/.test(t)) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

function carries(text: string, forms: string[][], depth: number): boolean {
  if (forms.some((f) => f.some((s) => text.includes(s)))) return true;
  if (depth > MAX_DEPTH) return false;
  const json = parsed(text);
  if (json === undefined) return false;
  const strings: string[] = [];
  decodedStrings(json, strings, 0);
  return strings.some((s) => s !== text && carries(s, forms, depth + 1));
}

/** Whether `text` holds any of the non-empty `secrets`, plainly, escaped as svc escapes, or inside JSON. */
export function carriesSecret(text: string, secrets: readonly string[]): boolean {
  const list = secrets.filter((s) => s !== '');
  if (list.length === 0 || text === '') return false;
  return carries(text, list.map(secretForms), 0);
}

/** A secret by name and value, as a run holds it in memory. */
export interface NamedSecret {
  name: string;
  value: string;
}

/** Longest value first: a secret inside a longer one is not taken for a piece of it. */
const longestFirst = (secrets: readonly NamedSecret[]): NamedSecret[] => secrets.filter((s) => s.value !== '').sort((a, b) => b.value.length - a.value.length);

/**
 * A text with each secret value in it replaced by a reference to the secret (`${NAME}`), so that it can be
 * stored (a sub-DAG run's params, ADR 0028); `dereferenceSecrets` with the same secrets gives the text back.
 */
export function referenceSecrets(text: string, secrets: readonly NamedSecret[]): string {
  let out = text;
  for (const s of longestFirst(secrets)) out = out.split(s.value).join(`\${${s.name}}`);
  return out;
}

/** The references of `referenceSecrets` replaced by the values again (in the reverse order). */
export function dereferenceSecrets(text: string, secrets: readonly NamedSecret[]): string {
  let out = text;
  for (const s of longestFirst(secrets).reverse()) out = out.split(`\${${s.name}}`).join(s.value);
  return out;
}

/** `text` (JSON, a shell word, plain) with every secret masked in each form svc writes it in. */
export function maskSecretForms(text: string, secrets: readonly string[]): string {
  return maskSecrets(text, secrets.filter((s) => s !== '').flatMap(secretForms));
}

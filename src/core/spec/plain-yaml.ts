/**
 * A fast reader for the plain block YAML most DAG files are written in (ADR 0006): block maps with
 * simple keys, block sequences, one-line plain and quoted scalars, one-line flow sequences of scalars,
 * `{}`, literal block scalars (`|`, `|-`, `|+`), comments and `---` between documents. For a text it
 * accepts it returns exactly the values the `yaml` package gives (the differential tests say so); for
 * anything else (anchors, tags, folded or multi-line scalars, flow maps, odd keys, duplicate keys, tabs
 * in structure, anything `yaml` might reject) it returns undefined and the caller uses `yaml`.
 *
 * Why: `yaml` builds a full document model, and a 400-line file costs it 30-40 ms in a fresh
 * process, a tenth of a short run's wall time; this reader takes about 1 ms.
 */

export type PlainValue = null | boolean | number | string | PlainValue[] | { [key: string]: PlainValue };

/** Thrown inside the reader when the text leaves the subset; never escapes it. */
const OUTSIDE = Symbol('outside the plain subset');

function outside(): never {
  throw OUTSIDE;
}

/** Characters `yaml` rejects or reads differently (CR, controls, BOM, Unicode line breaks): not for this reader. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const UNSUPPORTED_CHARS = /[\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u0085\u2028\u2029\ufeff]/;
const SEPARATOR = /^---(?:(?: +#.*)| *)$/;
const KEY = /^([A-Za-z_][\w.-]*):(?= |$)/;
/** Keys that are not plain strings to `yaml` (booleans, nulls) or special to JavaScript objects. */
const RESERVED_KEYS = new Set(['true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'null', 'Null', 'NULL', '__proto__']);
/** What may follow a quoted scalar or flow sequence on its line. */
const TRAILER = /^(?: +#.*| *)$/;

/** The documents of `text` as plain values, or undefined when it is not written in the plain subset. */
export function readPlainYaml(text: string): PlainValue[] | undefined {
  if (UNSUPPORTED_CHARS.test(text)) return undefined;
  try {
    const lines = text.split('\n');
    // After a final line break there is no line; without one, a block scalar running to the end would end unbroken.
    const unbroken = lines[lines.length - 1] !== '';
    if (!unbroken) lines.pop();
    return documents(lines, unbroken);
  } catch {
    // Outside the subset, or anything unexpected (nesting deep enough to exhaust the stack): `yaml` decides.
    return undefined;
  }
}

function documents(lines: string[], unbroken: boolean): PlainValue[] {
  const out: PlainValue[] = [];
  let start = 0;
  for (let i = 0; i <= lines.length; i++) {
    const line = lines[i];
    if (line !== undefined && !SEPARATOR.test(line)) {
      if (line.startsWith('...') || line.startsWith('%') || line.startsWith('---')) outside();
      continue;
    }
    const doc = new Reader(lines, start, i, unbroken && line === undefined).document();
    // Only the part before a first separator may be empty (comments); any other empty document is left to `yaml`.
    if (doc !== undefined) out.push(doc);
    else if (start > 0 || line === undefined) outside();
    start = i + 1;
  }
  return out;
}

const leadingSpaces = (s: string): number => {
  let n = 0;
  while (s.charCodeAt(n) === 32) n++;
  return n;
};
const isBlank = (s: string): boolean => leadingSpaces(s) === s.length;
/** Only spaces are trimmed: YAML's white space is space and tab (tabs never get here), not JavaScript's. */
const trimSpaces = (s: string): string => s.slice(leadingSpaces(s)).replace(/ +$/, '');
const isComment = (s: string): boolean => s.charCodeAt(leadingSpaces(s)) === 35; // '#'

class Reader {
  private pos: number;

  /** `unbroken`: the document is the text's last and its last line has no line break (left to `yaml` in a block scalar). */
  constructor(private readonly lines: string[], start: number, private readonly end: number, private readonly unbroken: boolean) {
    this.pos = start;
  }

  /** The document's map, or undefined when it has no content at all. */
  document(): PlainValue | undefined {
    const first = this.next();
    if (first === undefined) return undefined;
    if (leadingSpaces(first) !== 0) outside();
    const map = this.map(0);
    if (this.next() !== undefined) outside();
    return map;
  }

  /** The next line with content (blank and comment lines skipped), not consumed; undefined at the end. */
  private next(): string | undefined {
    while (this.pos < this.end) {
      const line = this.lines[this.pos]!;
      if (!isBlank(line) && !isComment(line)) {
        if (line.includes('\t')) outside();
        return line;
      }
      this.pos++;
    }
    return undefined;
  }

  /** A block map whose keys are at `indent`; `first` is its first entry when it began after a `- `. */
  private map(indent: number, first?: string): { [key: string]: PlainValue } {
    const map: { [key: string]: PlainValue } = {};
    if (first !== undefined) this.entry(map, indent, first);
    for (let line = this.next(); line !== undefined; line = this.next()) {
      const n = leadingSpaces(line);
      if (n < indent) break;
      if (n > indent) outside();
      this.entry(map, indent, line.slice(n));
    }
    return map;
  }

  private entry(map: { [key: string]: PlainValue }, indent: number, text: string): void {
    const m = KEY.exec(text);
    if (!m) outside();
    const key = m[1]!;
    if (RESERVED_KEYS.has(key) || Object.prototype.hasOwnProperty.call(map, key)) outside();
    map[key] = this.value(text.slice(m[0].length), indent, true);
  }

  /** A block sequence whose dashes are at `indent`. */
  private seq(indent: number): PlainValue[] {
    const seq: PlainValue[] = [];
    for (let line = this.next(); line !== undefined; line = this.next()) {
      const n = leadingSpaces(line);
      if (n < indent) break;
      if (n > indent) outside();
      const text = line.slice(n);
      if (text !== '-' && !text.startsWith('- ')) break;
      const rest = text.slice(1);
      const col = n + 1 + leadingSpaces(rest);
      const content = rest.slice(col - n - 1);
      if (content === '-' || content.startsWith('- ')) outside();
      if (KEY.test(content)) {
        seq.push(this.map(col, content));
      } else {
        seq.push(this.value(rest, indent, false));
      }
    }
    return seq;
  }

  /**
   * The value after `key:` or `-` on the current line (`rest`, its leading spaces included), of a node
   * at `indent`: on the line itself, or the block below it (which, after a key, may be a sequence at
   * the key's own indentation).
   */
  private value(rest: string, indent: number, afterKey: boolean): PlainValue {
    const s = rest.slice(leadingSpaces(rest));
    this.pos++;
    if (s === '' || s.startsWith('#')) {
      if (s === '' && rest !== '' && !afterKey) outside(); // "- " with nothing: left to `yaml`
      return this.block(indent, afterKey);
    }
    if (rest.charCodeAt(0) !== 32) outside();
    switch (s.charAt(0)) {
      case '"': return quoted(s, doubleQuoted);
      case "'": return quoted(s, singleQuoted);
      case '[': return flowSeq(s);
      case '{': if (/^\{\}(?: +#.*| *)$/.test(s)) return {}; return outside();
      case '|': return this.literal(s, indent);
      default: return plainScalar(s, false);
    }
  }

  /** The node in the lines below a key or dash with nothing after it: null when there is none. */
  private block(indent: number, afterKey: boolean): PlainValue {
    const line = this.next();
    if (line === undefined) return null;
    const n = leadingSpaces(line);
    const dash = line.startsWith('- ', n) || line.length === n + 1 && line.charAt(n) === '-';
    if (dash && (n > indent || (afterKey && n === indent))) return this.seq(n);
    if (n <= indent) return null;
    return this.map(n);
  }

  /** A literal block scalar (`|`, `|-`, `|+`) of a node at `indent`; the header is `header`. */
  private literal(header: string, indent: number): string {
    const m = /^\|([+-]?)(?: +#.*| *)$/.exec(header);
    if (!m) outside();
    const lines: string[] = [];
    let width = -1;
    for (; this.pos < this.end; this.pos++) {
      const line = this.lines[this.pos]!;
      if (isBlank(line)) {
        if (width >= 0 && line.length > width) outside(); // spaces as content
        lines.push('');
        continue;
      }
      const n = leadingSpaces(line);
      if (width < 0) {
        if (n <= indent || lines.some((l, i) => this.lines[this.pos - lines.length + i]!.length > n)) outside();
        width = n;
      }
      if (n < width) break;
      lines.push(line.slice(width));
    }
    if (width < 0 || (this.unbroken && this.pos === this.end)) outside();
    let last = lines.length - 1;
    while (last >= 0 && lines[last] === '') last--;
    const body = lines.slice(0, last + 1).join('\n');
    if (m[1] === '-') return body;
    if (m[1] === '+') return `${body}\n${'\n'.repeat(lines.length - 1 - last)}`;
    return `${body}\n`;
  }
}

/** A quoted scalar that must end on its line, followed by nothing but a comment. */
function quoted(s: string, read: (s: string) => { value: string; end: number }): string {
  const { value, end } = read(s);
  if (!TRAILER.test(s.slice(end))) outside();
  return value;
}

function singleQuoted(s: string): { value: string; end: number } {
  let value = '';
  for (let i = 1; i < s.length; i++) {
    const c = s.charAt(i);
    if (c !== "'") { value += c; continue; }
    if (s.charAt(i + 1) !== "'") return { value, end: i + 1 };
    value += "'";
    i++;
  }
  return outside();
}

const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', '0': '\0', ' ': ' ' };
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4 };

function doubleQuoted(s: string): { value: string; end: number } {
  let value = '';
  for (let i = 1; i < s.length; i++) {
    const c = s.charAt(i);
    if (c === '"') return { value, end: i + 1 };
    if (c !== '\\') { value += c; continue; }
    const e = s.charAt(++i);
    const simple = ESCAPES[e];
    if (simple !== undefined) { value += simple; continue; }
    const digits = HEX_ESCAPES[e];
    const hex = digits ? s.slice(i + 1, i + 1 + digits) : '';
    if (!digits || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) outside();
    const code = parseInt(hex, 16);
    if (code >= 0xd800 && code <= 0xdfff) outside();
    value += String.fromCharCode(code);
    i += digits;
  }
  return outside();
}

/** `[a, "b", 1]` on one line, scalars only. */
function flowSeq(s: string): PlainValue[] {
  const close = s.indexOf(']');
  if (close < 0 || !TRAILER.test(s.slice(close + 1))) outside();
  const inner = s.slice(1, close);
  if (inner.includes('#')) outside();
  if (isBlank(inner)) return [];
  return inner.split(',').map((item) => {
    const t = trimSpaces(item);
    if (t.startsWith('"') || t.startsWith("'")) {
      const { value, end } = t.startsWith('"') ? doubleQuoted(t) : singleQuoted(t);
      if (end !== t.length || value.includes(',')) outside();
      return value;
    }
    return plainScalar(t, true);
  });
}

/** A plain scalar (a comment after it cut off) resolved as YAML 1.2's core schema does. */
function plainScalar(raw: string, inFlow: boolean): PlainValue {
  const hash = raw.indexOf(' #');
  const s = trimSpaces(hash >= 0 ? raw.slice(0, hash) : raw);
  if (s === '' || /^[,[\]{}#&*!|>'"%@`]/.test(s) || /^[-?:](?: |$)/.test(s) || s.includes(': ') || s.endsWith(':')) outside();
  if (inFlow && (/[[\]{}#"']/.test(s) || /^[?:]/.test(s))) outside();
  return resolveScalar(s);
}

const NULL = /^(?:~|null|Null|NULL)$/;
const TRUE = /^(?:true|True|TRUE)$/;
const FALSE = /^(?:false|False|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const INF = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN = /^\.(?:nan|NaN|NAN)$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

export function resolveScalar(s: string): PlainValue {
  if (NULL.test(s)) return null;
  if (TRUE.test(s)) return true;
  if (FALSE.test(s)) return false;
  if (INT.test(s)) return parseInt(s, 10);
  if (OCT.test(s)) return parseInt(s.slice(2), 8);
  if (HEX.test(s)) return parseInt(s.slice(2), 16);
  if (INF.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (NAN.test(s)) return NaN;
  if (FLOAT.test(s)) return parseFloat(s);
  return s;
}

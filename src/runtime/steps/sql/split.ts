/**
 * Splits SQL text into statements at `;` and finds the parameter placeholders of each, with a small
 * lexer that knows what is not SQL code: quoted strings (with `''`, and postgres `E'..\'..'`), quoted
 * identifiers, comments (postgres block comments nest), postgres dollar quotes (`$$..$$`, `$fn$..$fn$`)
 * and sqlite's `[..]` and backquoted identifiers. A `;` inside a body that has statements of its own
 * (a sqlite `CREATE TRIGGER .. BEGIN .. END`, a postgres `BEGIN ATOMIC .. END`) does not end the
 * statement. Placeholders: `:name` (named, both dialects; not postgres `::` casts or `[a:b]` slices;
 * sqlite also `@name` and `$name`), `$n` (postgres), `?` and `?n` (sqlite).
 */

export type Dialect = 'postgres' | 'sqlite';

/** A placeholder in a statement's text: [start, end) relative to the statement. */
export interface Placeholder {
  start: number;
  end: number;
  /** `:name` placeholders. */
  name?: string;
  /** Positional placeholders: the 1-based index they bind ($2 and ?2 are 2; a bare ? the next one). */
  index?: number;
}

export interface Statement {
  text: string;
  /** Where the statement starts in the source (for line and column numbers in errors). */
  offset: number;
  placeholders: Placeholder[];
}

const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

class Lexer {
  private i = 0;
  private start = 0;
  /** Whether the current statement has anything but blanks and comments. */
  private code = false;
  private words: string[] = [];
  private depth = 0;
  private brackets = 0;
  private highest = 0;
  private marks: Placeholder[] = [];
  readonly statements: Statement[] = [];

  constructor(private readonly src: string, private readonly dialect: Dialect) {}

  run(): Statement[] {
    while (this.i < this.src.length) this.step();
    this.finish(this.src.length);
    return this.statements;
  }

  private step(): void {
    const { src, i } = this;
    const c = src[i]!;
    const next = src[i + 1];
    if (c === '-' && next === '-') return this.skipTo('\n', i + 2, 0);
    if (c === '/' && next === '*') return this.blockComment();
    if (/\s/.test(c)) { this.i++; return; }
    this.code = true;
    if (c === ';' && this.depth === 0) return this.endStatement();
    if (c === "'") return this.quoted("'", i + 1, this.isEString(i));
    if (c === '"') return this.quoted('"', i + 1, false);
    if (c === ':') return this.colon();
    if (this.dialect === 'sqlite' ? this.sqliteChar(c) : this.postgresChar(c)) return;
    if (IDENT_START.test(c)) return this.word();
    if (/[0-9]/.test(c)) return this.number();
    this.i++;
  }

  /** Quoted identifiers and placeholders only sqlite has; true when handled. */
  private sqliteChar(c: string): boolean {
    if (c === '`') this.quoted('`', this.i + 1, false);
    else if (c === '[') this.skipTo(']', this.i + 1, 1);
    else if (c === '?') this.question();
    else if (c === '@' || c === '$') this.sqliteNamed();
    else return false;
    return true;
  }

  /** Dollar quotes and `$n`; brackets counted (a `:` inside is an array slice); true when handled. */
  private postgresChar(c: string): boolean {
    if (c === '$') {
      this.dollar();
      return true;
    }
    if (c === '[') this.brackets++;
    if (c === ']') this.brackets = Math.max(0, this.brackets - 1);
    return false;
  }

  /** Moves past the next `end` at or after `from` (and `keep` more characters), or to the end. */
  private skipTo(end: string, from: number, keep: number): void {
    const at = this.src.indexOf(end, from);
    this.i = at < 0 ? this.src.length : at + keep;
  }

  private blockComment(): void {
    let level = 0;
    let j = this.i;
    while (j < this.src.length) {
      if (this.src.startsWith('/*', j)) { level++; j += 2; continue; }
      if (this.src.startsWith('*/', j)) {
        level--; j += 2;
        if (level === 0 || this.dialect === 'sqlite') break;
        continue;
      }
      j++;
    }
    this.i = j;
  }

  /** `E'...'` (postgres): backslash escapes inside. */
  private isEString(i: number): boolean {
    if (this.dialect !== 'postgres' || i === 0) return false;
    const before = this.src[i - 1]!;
    return (before === 'E' || before === 'e') && (i < 2 || !IDENT_PART.test(this.src[i - 2]!));
  }

  /** A quoted string or identifier; the quote doubled is a quote; `backslash`: `\x` escapes too. */
  private quoted(q: string, from: number, backslash: boolean): void {
    let j = from;
    while (j < this.src.length) {
      const c = this.src[j]!;
      if (backslash && c === '\\') { j += 2; continue; }
      if (c === q) {
        if (this.src[j + 1] === q) { j += 2; continue; }
        j++;
        break;
      }
      j++;
    }
    this.i = Math.min(j, this.src.length);
  }

  private colon(): void {
    const { src, i } = this;
    if (src[i + 1] === ':') { this.i += 2; return; }
    const m = /^:([A-Za-z_][A-Za-z0-9_]*)/.exec(src.slice(i, i + 200));
    if (m && this.brackets === 0) {
      this.mark({ start: i, end: i + m[0].length, name: m[1]! });
      this.i += m[0].length;
      return;
    }
    this.i++;
  }

  /** `$1` is a parameter; `$tag$ ... $tag$` (tag empty or an identifier) is a string. */
  private dollar(): void {
    const { src, i } = this;
    if (i > 0 && IDENT_PART.test(src[i - 1]!)) { this.i++; return; }
    const param = /^\$([0-9]+)/.exec(src.slice(i, i + 12));
    if (param) {
      this.mark({ start: i, end: i + param[0].length, index: Number(param[1]) });
      this.i += param[0].length;
      return;
    }
    const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(src.slice(i, i + 100));
    if (!tag) { this.i++; return; }
    this.skipTo(tag[0], i + tag[0].length, tag[0].length);
  }

  /** sqlite's other spellings of a named parameter, `@name` and `$name`. */
  private sqliteNamed(): void {
    const m = /^[@$]([A-Za-z_][A-Za-z0-9_]*)/.exec(this.src.slice(this.i, this.i + 200));
    if (m && (this.i === 0 || !IDENT_PART.test(this.src[this.i - 1]!))) {
      this.mark({ start: this.i, end: this.i + m[0].length, name: m[1]! });
      this.i += m[0].length;
      return;
    }
    this.i++;
  }

  /** sqlite: `?5` binds the 5th value; a bare `?` the one after the highest so far. */
  private question(): void {
    const m = /^\?([0-9]*)/.exec(this.src.slice(this.i, this.i + 12))!;
    const index = m[1] ? Number(m[1]) : this.highest + 1;
    this.mark({ start: this.i, end: this.i + m[0].length, index });
    this.i += m[0].length;
  }

  private number(): void {
    let j = this.i;
    while (j < this.src.length && IDENT_PART.test(this.src[j]!)) j++;
    this.i = j;
  }

  private word(): void {
    let j = this.i;
    while (j < this.src.length && IDENT_PART.test(this.src[j]!)) j++;
    const w = this.src.slice(this.i, j).toUpperCase();
    this.i = j;
    this.block(w);
    this.words.push(w);
  }

  /** Bodies with statements of their own: `;` ends the statement only outside them. */
  private block(w: string): void {
    const prev = this.words[this.words.length - 1];
    if (this.depth > 0) {
      if (w === 'CASE') this.depth++;
      else if (w === 'END') this.depth--;
      return;
    }
    const trigger = this.dialect === 'sqlite' && this.words[0] === 'CREATE' && this.words.includes('TRIGGER');
    if ((trigger && w === 'BEGIN') || (this.dialect === 'postgres' && w === 'ATOMIC' && prev === 'BEGIN')) this.depth = 1;
  }

  private mark(p: Placeholder): void {
    if (p.index !== undefined) this.highest = Math.max(this.highest, p.index);
    this.marks.push(p);
  }

  private endStatement(): void {
    this.finish(this.i);
    this.i++;
    this.start = this.i;
  }

  private finish(end: number): void {
    const raw = this.src.slice(this.start, end);
    const lead = raw.length - raw.trimStart().length;
    const text = raw.trim();
    const offset = this.start + lead;
    if (this.code && text !== '') {
      this.statements.push({ text, offset, placeholders: this.marks.map((p) => ({ ...p, start: p.start - offset, end: p.end - offset })) });
    }
    this.code = false;
    this.words = [];
    this.depth = 0;
    this.brackets = 0;
    this.highest = 0;
    this.marks = [];
  }
}

export function splitSql(source: string, dialect: Dialect): Statement[] {
  return new Lexer(source, dialect).run();
}

/** 1-based line and column of an offset in a text. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/**
 * Secret masking (SPEC 2.4, 2.7): every occurrence of a secret value becomes `*******`.
 *
 * Rather than replacing secrets one after another (longest first), every occurrence of every secret is located in
 * the original text and overlapping occurrences are merged into one masked range. This gives the longest-first
 * result when one secret contains another, and also masks secrets that merely overlap (`abc` + `bcd` in `abcd`),
 * where sequential replacement would leave part of one visible. Adjacent (non-overlapping) occurrences stay
 * separate masks. Empty values are ignored (they would match everywhere).
 */

export const MASK = '*******';

interface Range {
  start: number;
  end: number;
}

function uniqueSecrets(secrets: string[]): string[] {
  return [...new Set(secrets.filter((s) => s !== ''))];
}

/** Occurrences (overlapping ones included) of all secrets, merged where they overlap, sorted by start. */
function findRanges(text: string, secrets: string[]): Range[] {
  const found: Range[] = [];
  for (const s of secrets) {
    for (let i = text.indexOf(s); i !== -1; i = text.indexOf(s, i + 1)) found.push({ start: i, end: i + s.length });
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Range[] = [];
  for (const r of found) {
    const last = merged[merged.length - 1];
    if (last && r.start < last.end) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  return merged;
}

/**
 * Renders text[from, to) with ranges masked. A range that starts before `from` continues a mask that was already
 * written, so its remaining characters are dropped rather than masked a second time.
 */
function render(text: string, from: number, to: number, ranges: Range[]): string {
  let out = '';
  let pos = from;
  for (const r of ranges) {
    if (r.end <= pos || r.start >= to) continue;
    if (r.start > pos) out += text.slice(pos, r.start);
    if (r.start >= from) out += MASK;
    pos = Math.min(r.end, to);
  }
  return out + text.slice(pos, to);
}

/** Replaces every occurrence of every non-empty secret with `*******`. */
export function maskSecrets(text: string, secrets: string[]): string {
  const list = uniqueSecrets(secrets);
  if (list.length === 0 || text === '') return text;
  return render(text, 0, text.length, findRanges(text, list));
}

export interface Masker {
  /** Masked text that is safe to write now; may be shorter than the input (the tail is held back). */
  push(chunk: string): string;
  /** The held-back rest, masked. The masker can be reused afterwards. */
  flush(): string;
}

/**
 * A streaming masker for log chunks: holds back at most (longest secret length - 1) characters, so a secret split
 * across chunks is still masked. It remembers the last (longest - 1) characters already written as context, so that
 * a mask which had to extend past the hold-back line is continued rather than partly revealed.
 */
export function createMasker(secrets: string[]): Masker {
  const list = uniqueSecrets(secrets);
  const hold = Math.max(0, ...list.map((s) => s.length)) - 1;
  let context = '';
  let pending = '';

  const emit = (text: string, cut: number, ranges: Range[]): string => {
    const out = render(text, context.length, cut, ranges);
    pending = text.slice(cut);
    context = text.slice(Math.max(0, cut - hold), cut);
    return out;
  };

  return {
    push(chunk: string): string {
      if (list.length === 0) return chunk;
      const text = context + pending + chunk;
      const ranges = findRanges(text, list);
      let cut = Math.max(context.length, text.length - hold);
      const straddling = ranges.find((r) => r.start < cut && r.end > cut);
      if (straddling) cut = straddling.end;
      return emit(text, cut, ranges);
    },
    flush(): string {
      const text = context + pending;
      const out = emit(text, text.length, findRanges(text, list));
      context = '';
      return out;
    },
  };
}

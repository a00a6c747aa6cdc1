/**
 * `*` (any run of characters, also none) and `?` (exactly one character) wildcards, matched in
 * O(text x pattern) time and O(1) space by the greedy two-pointer walk: on a mismatch only the last `*`
 * is retried one character further, so no input backtracks exponentially (a regular expression built
 * from `*?*?*?...` does, and blocks the event loop for minutes). Every other character is literal.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const c = pattern[p];
    if (c === '?' || (c !== undefined && c !== '*' && c === text[t])) {
      p++;
      t++;
    } else if (c === '*') {
      star = p++;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

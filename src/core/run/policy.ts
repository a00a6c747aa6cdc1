/** Retry, repeat and continueOn arithmetic and matching: SPEC 2.3, pure. */
import type { ContinueOn, RepeatPolicy, RetryPolicy } from '../spec/types.js';

/** Seconds to wait before the next run: interval * backoff^n, capped by maxIntervalSec when it is > 0. */
export function backoffDelaySec(intervalSec: number, backoff: number, n: number, maxIntervalSec: number): number {
  const raw = intervalSec * Math.pow(backoff > 1 ? backoff : 1, n);
  return maxIntervalSec > 0 ? Math.min(raw, maxIntervalSec) : raw;
}

/** Whether a failed execution may be retried, given how many retries already ran. */
export function shouldRetry(p: RetryPolicy | undefined, exitCode: number, retriesDone: number): boolean {
  if (!p || retriesDone >= p.limit) return false;
  return p.exitCode.length === 0 ? exitCode !== 0 : p.exitCode.includes(exitCode);
}

export function retryDelaySec(p: RetryPolicy, retriesDone: number): number {
  return backoffDelaySec(p.intervalSec, p.backoff, retriesDone, p.maxIntervalSec);
}

/**
 * Whether a finished execution repeats. `conditionMatched` is the evaluated condition (undefined when
 * the policy has none). while: repeat while the condition or exit code matches (no condition and no
 * exit codes: repeat unconditionally); until: repeat until it matches.
 */
export function shouldRepeat(p: RepeatPolicy | undefined, exitCode: number, conditionMatched: boolean | undefined, done: number): boolean {
  if (!p) return false;
  if (p.limit > 0 && done >= p.limit) return false;
  const codeMatch = p.exitCode.length > 0 ? p.exitCode.includes(exitCode) : undefined;
  const matched = conditionMatched ?? codeMatch;
  if (p.mode === 'while') return matched ?? exitCode === 0;
  return matched === undefined ? false : !matched;
}

export function repeatDelaySec(p: RepeatPolicy, repeatsDone: number): number {
  return backoffDelaySec(p.intervalSec, p.backoff, repeatsDone, p.maxIntervalSec);
}

/** Whether continueOn lets dependants run after this failure. */
export function continuesOnFailure(c: ContinueOn, exitCode: number | undefined, outputMatched: boolean): boolean {
  if (c.failure || outputMatched) return true;
  return exitCode !== undefined && c.exitCode.includes(exitCode);
}

/** Compiles a continueOn.output / expected pattern: `re:` prefix is a regular expression, otherwise a literal. */
export function compilePattern(pattern: string): (text: string) => boolean {
  if (pattern.startsWith('re:')) {
    let re: RegExp;
    try {
      re = new RegExp(pattern.slice(3));
    } catch {
      return () => false;
    }
    return (text) => re.test(text);
  }
  return (text) => text.includes(pattern);
}

/** continueOn.output: any pattern matching any line of the stdout text. */
export function outputMatches(patterns: string[], stdout: string): boolean {
  if (patterns.length === 0) return false;
  const lines = stdout.split(/\r?\n/);
  return patterns.some((p) => {
    const test = compilePattern(p);
    return lines.some((l) => test(l));
  });
}

/** A precondition's expected value: exact match, or `re:` regular expression (unanchored). */
export function matchesExpected(actual: string, expected: string): boolean {
  if (expected.startsWith('re:')) return compilePattern(expected)(actual);
  return actual === expected;
}

/** Preconditions and repeat conditions (SPEC 2.3): a command's exit code, or an evaluated value against `expected`. */
import type { Precondition } from '../../core/spec/types.js';
import { matchesExpected } from '../../core/run/policy.js';
import { expandAll, expandVars, type Lookup, type RunCommand } from '../../core/vars/expand.js';

export interface ConditionEnv {
  lookup: Lookup;
  /** Backquotes in a condition compared with `expected`. */
  runCommand: RunCommand;
  /** Runs a condition command where the steps run and gives its exit code. */
  test(command: string): Promise<number>;
}

/** True when the condition holds: with `expected`, the evaluated text matches; without, the command exits 0. */
export async function conditionHolds(condition: string, expected: string | undefined, e: ConditionEnv): Promise<boolean> {
  if (expected !== undefined) {
    const actual = (await expandAll(condition, e.lookup, e.runCommand, { keepUnknown: false })).trim();
    return matchesExpected(actual, expandVars(expected, e.lookup, { keepUnknown: false }));
  }
  return (await e.test(expandVars(condition, e.lookup))) === 0;
}

/** Evaluates all preconditions in order; the first unmet one gives the error. */
export async function checkPreconditions(list: Precondition[], e: ConditionEnv): Promise<{ met: boolean; error?: string }> {
  for (const p of list) {
    const holds = await conditionHolds(p.condition, p.expected, e);
    if (holds === p.negate) {
      const what = p.expected !== undefined ? `${p.condition} ${p.negate ? '!=' : '=='} ${p.expected}` : p.condition;
      return { met: false, error: p.error ?? `precondition not met: ${what}` };
    }
  }
  return { met: true };
}

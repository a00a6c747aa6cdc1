/**
 * Variable and command substitution in DAG text (SPEC 2.7; dagu-behaviour 4 "Substitution order").
 *
 * Substitution is textual and happens before any shell sees the text, so single-quoted regions are NOT special:
 * `echo '$NAME'` gets NAME substituted like Dagu does. `$(...)` is left to the shell.
 */
import { jsonPath, parseJsonPath, renderJsonValue } from './jsonpath.js';
import { shellParam, substring } from './shell-params.js';

export { jsonPath } from './jsonpath.js';

export type Lookup = (name: string) => string | undefined;
export type RunCommand = (cmd: string) => Promise<string>;

export interface ExpandOptions {
  /**
   * Unknown variables (and `${NAME.path}` on a value that is not JSON) stay as written when true (the default),
   * so a shell still sees `$HOME` and can expand it itself; when false they become ''.
   */
  keepUnknown?: boolean;
  /**
   * Text for a shell: `$$` and `\$` stay as written, and plain references to names the shell will have in its
   * environment (`leaveToShell(name)` true) are left for the shell, which quotes their values correctly.
   * JSON path reads (`${NAME.path}`) and names the process will not see are still substituted.
   */
  leaveToShell?: (name: string) => boolean;
  /**
   * The shell's parameter expansions (`${V:-word}`, `${V:0:3}`, `${V#pat}`, ...: shell-params.ts) are
   * evaluated too: for values svc evaluates itself (env values, params), never for text a shell runs.
   */
  shellForms?: boolean;
}

/**
 * One pass over `$$`, `\$`, `${...}` (no nested braces inside), `$NAME` and `$1`..`$9` (`$10` is `$1` then `0`,
 * as in sh; write `${10}`). In `${A${B}}` the outer form is not a reference, so only `${B}` is replaced.
 */
const TOKEN = /\$\$|\\\$|\$\{([^{}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*|[0-9])/g;
const BRACED = /^([A-Za-z_][A-Za-z0-9_]*|[0-9]+)([.[].*)?$/s;

function resolveRef(name: string, path: string | undefined, lookup: Lookup): string | undefined {
  const value = lookup(name);
  if (value === undefined || path === undefined) return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  return renderJsonValue(jsonPath(parsed, path));
}

/**
 * `${id.stdout:0:4}`: a substring (bash's offset and length) of a JSON path read such as a step reference,
 * which no shell could expand; undefined when the text is no such form or the read finds nothing.
 */
function slicedRef(name: string, path: string, lookup: Lookup): string | undefined {
  const at = path.indexOf(':');
  if (at < 0 || !parseJsonPath(path.slice(0, at))) return undefined;
  const value = resolveRef(name, path.slice(0, at), lookup);
  return value === undefined ? undefined : substring(value, path.slice(at + 1));
}

/** Replaces `${NAME}`, `$NAME`, `$1`, `${10}`, `${NAME.a[0].b}`; `$$` and `\$` give a literal `$`. */
export function expandVars(text: string, lookup: Lookup, opts: ExpandOptions = {}): string {
  const keep = opts.keepUnknown ?? true;
  return text.replace(TOKEN, (whole, braced: string | undefined, bare: string | undefined) => {
    if (whole === '$$' || whole === '\\$') return opts.leaveToShell ? whole : '$';
    let value: string | undefined;
    if (bare !== undefined) {
      if (opts.leaveToShell?.(bare)) return whole;
      value = lookup(bare);
    } else {
      const m = BRACED.exec(braced ?? '');
      if (!m && opts.shellForms) {
        const v = shellParam(braced ?? '', lookup, (word) => expandVars(word, lookup, opts));
        if (v !== undefined) return v;
      }
      if (m && m[2]?.includes(':')) {
        const sliced = slicedRef(m[1] as string, m[2], lookup);
        if (sliced !== undefined) return sliced;
      }
      // Not a variable reference (`${V:-x}`, `${}`): left for the shell.
      if (!m || (m[2] !== undefined && !parseJsonPath(m[2]))) return whole;
      if (m[2] === undefined && opts.leaveToShell?.(m[1] as string)) return whole;
      value = resolveRef(m[1] as string, m[2], lookup);
    }
    return value ?? (keep ? whole : '');
  });
}

interface Segment {
  command: boolean;
  text: string;
}

/** Splits text at unescaped backquotes; `` \` `` stays literal and an unterminated backquote is literal text. */
export function splitBackquotes(text: string): Segment[] {
  const out: Segment[] = [];
  let cur = '';
  let inCmd = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\' && text[i + 1] === '`') {
      cur += '\\`';
      i++;
    } else if (c === '`') {
      out.push({ command: inCmd, text: cur });
      cur = '';
      inCmd = !inCmd;
    } else cur += c;
  }
  if (inCmd) {
    const last = out.pop();
    out.push({ command: false, text: `${last?.text ?? ''}\`${cur}` });
  } else out.push({ command: false, text: cur });
  return out.filter((s) => s.command || s.text !== '');
}

/**
 * expandVars, then each `` `cmd` `` replaced by the trimmed stdout of runCommand (commands run one after another,
 * left to right). Backquotes are located in the text as written, before variables are pasted in, so a variable
 * whose value contains backquotes is never executed (Dagu would run it); otherwise the result is the same as
 * substituting variables first.
 */
export async function expandAll(text: string, lookup: Lookup, runCommand: RunCommand, opts: ExpandOptions = {}): Promise<string> {
  let out = '';
  for (const seg of splitBackquotes(text)) {
    const expanded = expandVars(seg.text, lookup, opts);
    out += seg.command ? (expanded.trim() === '' ? '' : (await runCommand(expanded)).trim()) : expanded;
  }
  return out;
}

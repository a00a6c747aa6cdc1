/** Building the argv of a shell-type execution (SPEC 2.3 command/script/shell). */
import type { ExecRequest } from './ports/executor.js';

/** Splits a command line into words, honouring single and double quotes (used when no shell is set). */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let quote: '"' | "'" | null = null;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") { quote = c; has = true; }
    else if (c === '\\' && i + 1 < line.length) { cur += line[++i]; has = true; }
    else if (/\s/.test(c)) { if (has || cur) words.push(cur); cur = ''; has = false; }
    else { cur += c; has = true; }
  }
  if (has || cur) words.push(cur);
  return words;
}

/** The argv of each sequential command of the request; a script adds its file path. */
export function commandArgvs(req: ExecRequest, scriptFile?: string): string[][] {
  if (scriptFile !== undefined) return [scriptArgv(req, scriptFile)];
  return req.commands.map((cmd) => (req.shell.length > 0 ? [...req.shell, '-c', cmd] : splitWords(cmd)));
}

function scriptArgv(req: ExecRequest, file: string): string[] {
  const first = req.commands[0];
  if (first) return req.shell.length > 0 ? [...req.shell, '-c', `${first} "$0"`, file] : [...splitWords(first), file];
  if (!req.shellExplicit && req.script?.startsWith('#!')) return [file];
  return req.shell.length > 0 ? [...req.shell, file] : ['/bin/sh', file];
}

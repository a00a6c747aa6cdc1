/**
 * The command line's grammar: each command's options and positionals (commands.ts), parsed strictly with
 * Node's own `util.parseArgs`: an unknown option, an option missing its value or a wrong number of
 * arguments is a UsageError (exit 2) that says what was wrong, with a suggestion for a typo.
 */
import { parseArgs as parseNodeArgs } from 'node:util';

export interface Args {
  positional: string[];
  flags: Record<string, string | true | string[]>;
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** A string option's value, as `--help` shows it (`<id>`). */
  value?: string;
  /** What the option does, for `--help`. */
  help: string;
  /** A string option that may be given several times (`--input A=1 --input B=2`). */
  multiple?: boolean;
}

export interface CommandSpec {
  /** The arguments after the command's name, e.g. `<dag> [--run-id <id>]`. */
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** How many positionals it takes: at least, at most. */
  positionals: [number, number];
}

export class UsageError extends Error {}

export const flag = (a: Args, name: string): string | undefined => (typeof a.flags[name] === 'string' ? (a.flags[name] as string) : undefined);

/** Every value of a `multiple` option, in order. */
export const flagList = (a: Args, name: string): string[] => {
  const v = a.flags[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
};

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const keep = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = keep;
    }
  }
  return d[b.length]!;
}

/** ` (did you mean "x"?)` for the closest candidate within two edits, else ''. */
export function suggestion(word: string, candidates: string[], quote = (s: string) => `"${s}"`): string {
  const best = candidates.map((c) => ({ c, d: distance(word, c) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= 2 ? ` (did you mean ${quote(best.c)}?)` : '';
}

/** The arguments of `svc <name> ...` as the command's spec allows them. `--help` is every command's. */
export function parseCommandArgs(name: string, spec: CommandSpec, argv: string[]): Args & { help: boolean } {
  const options = { ...Object.fromEntries(Object.entries(spec.options).map(([k, o]) => [k, { type: o.type, ...(o.multiple ? { multiple: true } : {}) }])), help: { type: 'boolean' as const, short: 'h' } };
  let parsed;
  try {
    parsed = parseNodeArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`svc ${name}: ${usageProblem(e, Object.keys(spec.options))}\nusage: svc ${name} ${spec.usage}`);
  }
  const flags: Args['flags'] = {};
  for (const [k, v] of Object.entries(parsed.values)) if (v !== undefined && v !== false && k !== 'help') flags[k] = v as string | true | string[];
  const positional = parsed.positionals;
  const help = parsed.values.help === true;
  const [min, max] = spec.positionals;
  if (!help && (positional.length < min || positional.length > max)) {
    const what = positional.length < min ? 'missing arguments' : `unexpected argument ${JSON.stringify(positional[max])}`;
    throw new UsageError(`svc ${name}: ${what}\nusage: svc ${name} ${spec.usage}`);
  }
  return { positional, flags, help };
}

/** Node's parse error as a sentence: the option, and what was wrong with it. */
function usageProblem(e: unknown, known: string[]): string {
  const err = e as { code?: string; message?: string };
  const option = /'(-{1,2}[^' ]+)/.exec(err.message ?? '')?.[1] ?? '';
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return `unknown option ${option}${suggestion(option.replace(/^-+/, ''), known, (s) => `--${s}`)}`;
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /argument missing|needs a value|ambiguous/.test(err.message ?? '') ? `option ${option} needs a value` : `option ${option} takes no value`;
  }
  return err.message ?? String(e);
}

/** `svc <name> --help`. */
export function commandHelp(name: string, spec: CommandSpec): string {
  const opts = Object.entries(spec.options).map(([k, o]) => `  --${k}${o.value ? ` ${o.value}` : ''}  ${o.help}`);
  return [`usage: svc ${name} ${spec.usage}`, spec.summary, ...(opts.length ? ['options:', ...opts] : []), '  --help, -h  this help', ''].join('\n');
}

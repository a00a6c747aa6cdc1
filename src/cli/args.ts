/** A small argument parser: positionals and --flag value / --flag=value / boolean flags. */
export interface Args {
  positional: string[];
  flags: Record<string, string | true>;
}

export function parseArgs(argv: string[], booleans: string[] = []): Args {
  const out: Args = { positional: [], flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') { out.positional.push(...argv.slice(i + 1)); break; }
    if (!a.startsWith('--')) { out.positional.push(a); continue; }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq > 0 ? eq : undefined);
    if (eq > 0) out.flags[name] = a.slice(eq + 1);
    else if (booleans.includes(name) || i + 1 >= argv.length) out.flags[name] = true;
    else out.flags[name] = argv[++i]!;
  }
  return out;
}

export const flag = (a: Args, name: string): string | undefined => (typeof a.flags[name] === 'string' ? (a.flags[name] as string) : undefined);

export class UsageError extends Error {}

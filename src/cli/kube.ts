/** `svc kube manifest <file> [--namespace <ns>]`: the Dag manifest of a DAG file, for kubectl apply and GitOps. */
import { readFile, stat } from 'node:fs/promises';
import { BadRequestError } from '../core/errors.js';
import { checkSpecSize } from '../core/spec/limits.js';
import { basename } from 'node:path';
import { dagManifest, manifestText } from '../main/kube.js';
import { flag, UsageError, type Args } from './args.js';
import type { CliContext } from './context.js';

const USAGE = 'usage: svc kube manifest <file.yaml> [--namespace <ns>]';

export async function kubeCommand(ctx: CliContext, args: Args): Promise<number> {
  const [sub, file] = args.positional;
  if (sub !== 'manifest' || !file) throw new UsageError(USAGE);
  let text: string;
  try {
    // The limit the API and the admission webhook apply (512 KiB): a manifest they would refuse is not printed.
    checkSpecSize(`DAG file ${file}`, (await stat(file)).size);
    text = await readFile(file, 'utf8');
  } catch (e) {
    ctx.io.err(e instanceof BadRequestError ? `${e.message}\n` : `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}\n`);
    return 1;
  }
  const fileName = basename(file).replace(/\.ya?ml$/, '');
  const { manifest, errors } = dagManifest(text, fileName, flag(args, 'namespace'));
  if (!manifest) {
    ctx.io.err(`${file} has no Dag manifest:\n${errors.map((e) => `  - ${e}`).join('\n')}\n`);
    return 1;
  }
  ctx.io.out(manifestText(manifest));
  return 0;
}

/** Where the build leaves the native fork server (hack/build-native.mjs, ADR 0008). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's dist/svc-fork-server, seen from wherever this module runs: the compiled tree
 * (dist/runtime/shell), the CLI bundle (dist/svc-cli.cjs, whose import.meta.url the bundler defines as
 * the bundle's own) or the sources under the test runner (src/runtime/shell). Undefined when the build
 * made none (no C compiler): steps are then spawned from Node.
 */
export function nativeForkServer(moduleUrl: string | undefined = import.meta.url): string | undefined {
  if (!moduleUrl?.startsWith('file:')) return undefined;
  const path = fileURLToPath(moduleUrl);
  const at = Math.max(path.lastIndexOf('/dist/'), path.lastIndexOf('/src/'));
  if (at < 0) return undefined;
  const file = join(path.slice(0, at), 'dist', 'svc-fork-server');
  return existsSync(file) ? file : undefined;
}

/**
 * The pinned tools of hack/tools.env (helm, kubeconform, hadolint), where hack/tools.sh installs them.
 * A suite that needs one which is missing fails under CI=true and is skipped loudly elsewhere.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Tool = 'helm' | 'kubeconform' | 'hadolint';
const ROOT = new URL('../../', import.meta.url).pathname;

function versions(): Record<string, string> {
  const text = readFileSync(join(ROOT, 'hack/tools.env'), 'utf8');
  return Object.fromEntries([...text.matchAll(/^(\w+)_VERSION=(\S+)$/gm)].map((m) => [m[1]!.toLowerCase(), m[2]!]));
}

/** The tool's binary in the cache of hack/tools.sh, or undefined. */
export function toolPath(tool: Tool): string | undefined {
  const dir = process.env.SVC_TOOLS_DIR ?? join(homedir(), '.cache', 'svc-tools');
  const file = join(dir, `${tool}-${versions()[tool]}`, 'bin', tool);
  return existsSync(file) ? file : undefined;
}

/** describe() that needs the given tools: missing ones fail under CI, and skip loudly elsewhere. */
export function describeTools(name: string, tools: Tool[], fn: () => void, outer: (name: string, fn: () => void) => void = describe): void {
  const missing = tools.filter((t) => !toolPath(t));
  if (missing.length === 0) return outer(name, fn);
  const reason = `${missing.join(', ')} not installed: run bash hack/tools.sh`;
  if (process.env.CI === 'true') {
    return outer(name, () => test('tools installed', () => { throw new Error(`CI: ${reason}`); }));
  }
  process.stderr.write(`\n!!! SKIPPING "${name}": ${reason}\n`);
  describe.skip(name, fn);
}

/** SPEC 2.4 secret providers: `env` (a variable of the service environment) and `file` (a file's content). */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { SecretProvider } from '../../core/ports/engine-ports.js';

export class BuiltinSecretProvider implements SecretProvider {
  async resolve(provider: string, key: string, _options: Record<string, string>, ctx: { workingDir: string; dagDir?: string; env: Record<string, string> }): Promise<string> {
    if (provider === 'env') {
      const v = ctx.env[key];
      if (v === undefined) throw new Error(`secret from env: variable ${key} is not set`);
      return v;
    }
    if (provider === 'file') {
      const candidates = isAbsolute(key) ? [key] : [resolve(ctx.workingDir, key), ...(ctx.dagDir ? [resolve(ctx.dagDir, key)] : [])];
      for (const path of candidates) {
        try {
          return (await readFile(path, 'utf8')).replace(/\r?\n$/, '');
        } catch { /* try the next */ }
      }
      throw new Error(`secret from file: cannot read ${key}`);
    }
    throw new Error(`unknown secret provider "${provider}" (built-in: env, file)`);
  }
}

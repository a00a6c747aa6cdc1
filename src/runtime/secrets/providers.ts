/** SPEC 2.4 secret providers: `env` (a variable of the service environment) and `file` (a file's content, read where the steps run). */
import { isAbsolute, resolve } from 'node:path';
import type { SecretContext, SecretProvider } from '../../core/ports/engine-ports.js';

export class BuiltinSecretProvider implements SecretProvider {
  async resolve(provider: string, key: string, _options: Record<string, string>, ctx: SecretContext): Promise<string> {
    if (provider === 'env') {
      const v = ctx.env[key];
      if (v === undefined) throw new Error(`secret from env: variable ${key} is not set`);
      return v;
    }
    if (provider === 'file') {
      const candidates = isAbsolute(key) ? [key] : [resolve(ctx.workingDir, key), ...(ctx.dagDir ? [resolve(ctx.dagDir, key)] : [])];
      const text = await ctx.read(candidates);
      if (text !== undefined) return text.replace(/\r?\n$/, '');
      throw new Error(`secret from file: cannot read ${key}`);
    }
    throw new Error(`unknown secret provider "${provider}" (built-in: env, file)`);
  }
}

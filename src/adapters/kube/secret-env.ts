/**
 * `provider: env` secrets (SPEC 2.4) on the operator. Its own environment is not the steps' (and must
 * not leak into them), so the "service environment" a DAG's env secrets read is a Kubernetes Secret the
 * operator is pointed at (SVC_SECRET_ENV_FROM, chart value operator.secretEnvFrom): each of its keys is
 * a variable. Read at each run start (a rotated value is seen by the next run). Other providers pass
 * through to `inner`.
 */
import type { SecretContext, SecretProvider } from '../../core/ports/engine-ports.js';
import type { Secrets } from './client.js';

export class SecretEnvProvider implements SecretProvider {
  constructor(private readonly inner: SecretProvider, private readonly secrets: Secrets, private readonly secretName: string | undefined) {}

  async resolve(provider: string, key: string, options: Record<string, string>, ctx: SecretContext): Promise<string> {
    if (provider !== 'env') return this.inner.resolve(provider, key, options, ctx);
    if (!this.secretName) {
      throw new Error(`secret from env: variable ${key} is not set (on Kubernetes the operator's own environment is not passed to steps: `
        + 'point SVC_SECRET_ENV_FROM, chart value operator.secretEnvFrom, at a Secret whose keys are the variables, or use provider file with a mounted Secret)');
    }
    const secret = await this.secrets.get(this.secretName);
    if (!secret) throw new Error(`secret from env: the Secret ${this.secretName} (SVC_SECRET_ENV_FROM) does not exist in namespace ${this.secrets.namespace}`);
    const value = secret.data?.[key];
    if (value === undefined) throw new Error(`secret from env: variable ${key} is not set (no key ${key} in the Secret ${this.secretName}, SVC_SECRET_ENV_FROM)`);
    return Buffer.from(value, 'base64').toString('utf8');
  }
}

/**
 * The output of a probe that reads a secret (a `file` secret's content, SPEC 2.4) never reaches the log
 * store as it is: the entry seals it (src/entry/seal.go, AES-256-GCM) with a key made for this execution
 * alone and handed over in the execution's Secret, and the launcher opens it when it reads the output.
 * Keys are derived from a random key of this launcher's process: after an operator restart a probe's
 * sealed output cannot be opened, and the probe is asked again, as probes are (never adopted).
 */
import { createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'svc-sealed:v1:';
const NONCE = 12;
const TAG = 16;

export class Sealer {
  private readonly master = randomBytes(32);

  /** The key (base64) of the execution named `name`. */
  keyFor(name: string): string {
    return createHmac('sha256', this.master).update(name).digest('base64');
  }
}

/** How many characters sealed text of `plainBytes` bytes takes. */
export const sealedLength = (plainBytes: number): number => PREFIX.length + Math.ceil((NONCE + plainBytes + TAG) / 3) * 4;

/** The text the entry sealed with `key`; an Error when it is not sealed text of that key. */
export function unseal(text: string, key: string): string {
  if (!text.startsWith(PREFIX)) throw new Error('the probe\'s output is not sealed');
  const raw = Buffer.from(text.slice(PREFIX.length).trim(), 'base64');
  if (raw.length < NONCE + TAG) throw new Error('the probe\'s sealed output is cut short');
  const d = createDecipheriv('aes-256-gcm', Buffer.from(key, 'base64'), raw.subarray(0, NONCE));
  d.setAuthTag(raw.subarray(raw.length - TAG));
  return Buffer.concat([d.update(raw.subarray(NONCE, raw.length - TAG)), d.final()]).toString('utf8');
}

/**
 * Upload grants: S3 POST policies (form uploads, signed with Signature Version 4) that let a step Pod write
 * objects under one key prefix of the bucket, for a while, and nothing else: no reads, no other keys
 * (ADR 0014). The Pod never sees the credentials that signed them.
 */
import { createHash, createHmac } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';

export interface UploadGrant {
  /** Where the form is POSTed: the bucket's URL. */
  url: string;
  /** The form's fields besides `key` and `file`. */
  fields: Record<string, string>;
}

/** The hash SignatureV4 wants (a sha256 or, with a secret, an HMAC), from node:crypto. */
type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (d: Data): string | Uint8Array => (typeof d === 'string' ? d : d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength));

class NodeSha256 {
  private readonly h;
  constructor(secret?: Data) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data): void {
    this.h.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
}

/** 20261125T041200Z and 20261125. */
function stamps(at: Date): { long: string; short: string } {
  const long = at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return { long, short: long.slice(0, 8) };
}

/** Objects of at most this many bytes (S3's limit for one PUT or POST). */
const MAX_OBJECT = 5 * 1024 ** 3;

export class UploadGrants {
  private readonly signer: SignatureV4;

  /** `url`: the bucket's URL (path style for most S3-compatible servers: <endpoint>/<bucket>). */
  constructor(private readonly o: { client: S3Client; bucket: string; region: string; url: string; now?: () => number }) {
    this.signer = new SignatureV4({ credentials: o.client.config.credentials, region: o.region, service: 's3', sha256: NodeSha256 });
  }

  /** A grant to write keys starting with `keyPrefix` until `seconds` from now. */
  async grant(keyPrefix: string, seconds: number): Promise<UploadGrant> {
    const at = new Date(this.o.now?.() ?? Date.now());
    const { long, short } = stamps(at);
    const creds = await this.o.client.config.credentials();
    const credential = `${creds.accessKeyId}/${short}/${this.o.region}/s3/aws4_request`;
    const fields: Record<string, string> = {
      'x-amz-algorithm': 'AWS4-HMAC-SHA256', 'x-amz-credential': credential, 'x-amz-date': long,
      ...(creds.sessionToken ? { 'x-amz-security-token': creds.sessionToken } : {}),
    };
    const policy = {
      expiration: new Date(at.getTime() + seconds * 1000).toISOString(),
      conditions: [{ bucket: this.o.bucket }, ['starts-with', '$key', keyPrefix], ['content-length-range', 0, MAX_OBJECT], ...Object.entries(fields).map(([k, v]) => ({ [k]: v }))],
    };
    const encoded = Buffer.from(JSON.stringify(policy)).toString('base64');
    const signature = await this.signer.sign(encoded, { signingDate: at, signingRegion: this.o.region, signingService: 's3' });
    return { url: this.o.url, fields: { ...fields, policy: encoded, 'x-amz-signature': signature } };
  }
}

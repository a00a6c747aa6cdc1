/**
 * A real OpenID Provider (npm oidc-provider, a certified implementation) on loopback for the OIDC tests.
 * Its login and consent interaction is answered at once for the account the test names in `next`.
 */
import { createServer, type Server } from 'node:http';
import { createServer as netServer, type AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations
import Provider from 'oidc-provider';

export type Account = { email?: string; email_verified?: boolean; groups?: string[]; preferred_username?: string; role?: string };

export const CLIENT_ID = 'svc-test';
export const CLIENT_SECRET = 'svc-test-client-secret-0123456789';

export class TestProvider {
  readonly accounts: Record<string, Account> = {};
  /** The account the next interaction logs in. */
  next = '';
  issuer = '';
  private server?: Server;

  async start(redirectUris: string[]): Promise<this> {
    this.server = createServer();
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    const accounts = this.accounts;
    const provider = new Provider(this.issuer, {
      clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
      findAccount: async (_ctx: unknown, id: string) => (accounts[id] ? { accountId: id, claims: async () => ({ sub: id, ...accounts[id] }) } : undefined),
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'groups', 'role'] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` },
      cookies: { keys: ['test-cookie-signing-key-0123456789'] },
    });
    provider.on('server_error', (_ctx: unknown, err: Error) => console.error('OP error', err));
    const handle = provider.callback();
    this.server.on('request', (req, res) => {
      if (req.url?.startsWith('/interaction/')) {
        void (async () => {
          const details = await provider.interactionDetails(req, res);
          const grant = new provider.Grant({ accountId: this.next, clientId: details.params.client_id });
          grant.addOIDCScope(details.params.scope);
          const grantId = await grant.save();
          await provider.interactionFinished(req, res, { login: { accountId: this.next }, consent: { grantId } }, { mergeWithLastSubmission: false });
        })().catch((e: unknown) => { res.statusCode = 500; res.end(String(e)); });
        return;
      }
      handle(req, res);
    });
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.server?.closeAllConnections();
  }
}

/** A free loopback port (for a server whose URL must be known before it starts). */
export async function freePort(): Promise<number> {
  const s = netServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * A browser: follows redirects from `start` with a cookie jar per origin until a Location under `stopAt`,
 * which it returns (with the fragment).
 */
export async function browse(start: string, stopAt: string, jar: Map<string, Map<string, string>> = new Map()): Promise<string> {
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    const origin = new URL(url).origin;
    const cookies = jar.get(origin) ?? new Map<string, string>();
    jar.set(origin, cookies);
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, ...v] = (pair as string).split('=');
      if (/max-age=0/i.test(c) || /expires=Thu, 01 Jan 1970/i.test(c)) cookies.delete(k as string);
      else cookies.set(k as string, v.join('='));
    }
    const loc = res.headers.get('location');
    if (!loc) throw new Error(`no redirect from ${url}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    const next = new URL(loc, url).href;
    if (next.startsWith(stopAt)) return next;
    url = next;
  }
  throw new Error('too many redirects');
}

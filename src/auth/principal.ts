/** Who made a request, once the authentication middleware has looked at its credentials. */
import type { Role } from '../core/auth/roles.js';

export type PrincipalKind = 'user' | 'apikey' | 'static' | 'basic';

export interface Principal {
  kind: PrincipalKind;
  role: Role;
  /** User id, API key id, or the kind for static credentials. */
  id: string;
  /** Username, API key name, or the kind. */
  name: string;
}

/** The actor of an audit line: a username, `apikey:<name>`, `static-token`, `basic`, or `anonymous`. */
export function actorOf(p: Principal | undefined): string {
  if (!p) return 'anonymous';
  if (p.kind === 'user') return p.name;
  if (p.kind === 'apikey') return `apikey:${p.name}`;
  return p.kind === 'static' ? 'static-token' : 'basic';
}

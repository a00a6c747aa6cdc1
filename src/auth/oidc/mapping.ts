/**
 * OIDC access and role rules (SPEC 5.4). Access: with neither whitelist nor allowedDomains every
 * authenticated e-mail passes; otherwise an e-mail passes when it is whitelisted or its domain (exact,
 * case-insensitive) is allowed. Role: roleAttributePath (a jq expression over the claims, real jq via
 * jq-wasm) first, then the highest role among groupMappings of the groups claim, then defaultRole, or
 * a refusal under roleAttributeStrict.
 */
import { json as jq } from 'jq-wasm';
import type { RoleMappingConfig } from '../../config/auth-config.js';
import { higherRole, isRole, type Role } from '../../core/auth/roles.js';

export interface AccessRule { whitelist: string[]; allowedDomains: string[] }

export function emailAllowed(email: string | undefined, rule: AccessRule): boolean {
  if (rule.whitelist.length === 0 && rule.allowedDomains.length === 0) return true;
  if (!email) return false;
  const e = email.toLowerCase();
  if (rule.whitelist.includes(e)) return true;
  const at = e.lastIndexOf('@');
  return at > 0 && rule.allowedDomains.includes(e.slice(at + 1));
}

/** The role a jq expression produces from the claims (its first output), or undefined. */
export async function roleFromExpression(expression: string, claims: Record<string, unknown>): Promise<Role | undefined> {
  try {
    const out = await jq(claims, expression);
    // jq-wasm gives several outputs as an array: the first output (or first element of an array) counts.
    const first: unknown = Array.isArray(out) ? out[0] : out;
    const v = typeof first === 'string' ? first.toLowerCase() : first;
    return isRole(v) ? v : undefined;
  } catch {
    return undefined; // a runtime error (e.g. iterating a missing claim) matches nothing
  }
}

/** A syntax error of the expression, found at start-up rather than at the first login. */
export async function expressionProblem(expression: string): Promise<string | undefined> {
  try {
    await jq({}, expression);
    return undefined;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return /compile error|syntax error/i.test(msg) ? msg : undefined;
  }
}

function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const v = claims[claim];
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((g): g is string => typeof g === 'string') : [];
}

/** The role of a login, or undefined when roleAttributeStrict refuses it. */
export async function mapRole(claims: Record<string, unknown>, m: RoleMappingConfig): Promise<Role | undefined> {
  if (m.roleAttributePath) {
    const r = await roleFromExpression(m.roleAttributePath, claims);
    if (r) return r;
  }
  let best: Role | undefined;
  for (const g of groupsOf(claims, m.groupsClaim)) {
    const r = m.groupMappings[g];
    if (r) best = best ? higherRole(best, r) : r;
  }
  if (best) return best;
  return m.roleAttributeStrict ? undefined : m.defaultRole;
}

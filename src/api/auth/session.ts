/** POST /auth/login, GET /auth/me, POST /auth/change-password (SPEC 4.2). */
import { Router } from 'express';
import { BadRequestError } from '../../core/errors.js';
import type { Auditor } from '../../auth/audit.js';
import { TooManyAttemptsError, type LoginService } from '../../auth/login.js';
import { publicUser, type UserService } from '../../auth/users.js';
import { requireBuiltin, requirePrincipal, sourceOf } from './context.js';
import { objectBody } from '../input.js';

export interface SessionDeps {
  builtin: boolean;
  login?: LoginService;
  users?: UserService;
  audit: Auditor;
}

export function sessionRouter(d: SessionDeps): Router {
  const r = Router();

  r.post('/auth/login', async (req, res) => {
    requireBuiltin(d.builtin);
    try {
      res.json(await d.login!.login(req.body, sourceOf(req)));
    } catch (e) {
      if (e instanceof TooManyAttemptsError) res.set('Retry-After', String(e.retryAfterSeconds));
      throw e;
    }
  });

  r.get('/auth/me', async (_req, res) => {
    requireBuiltin(d.builtin);
    const p = requirePrincipal(res);
    if (p.kind === 'user') return void res.json({ user: publicUser(await d.users!.get(p.id)), authType: 'jwt' });
    res.json({ user: { id: p.id, username: p.name, role: p.role }, authType: p.kind === 'apikey' ? 'apiKey' : 'staticToken' });
  });

  r.post('/auth/change-password', async (req, res) => {
    requireBuiltin(d.builtin);
    const p = requirePrincipal(res);
    const body = objectBody(req);
    if (p.kind !== 'user') throw new BadRequestError('only a user (logged in with a JWT) has a password to change');
    const user = await d.users!.changePassword(p.id, body.currentPassword, body.newPassword);
    await d.audit.record({ actor: user.username, action: 'user.password_change', target: user.username, source: sourceOf(req), outcome: 'success' });
    // The old tokens are revoked with the change: the caller gets a fresh one.
    res.json({ message: 'password changed', ...(await d.login!.session(user)) });
  });

  return r;
}

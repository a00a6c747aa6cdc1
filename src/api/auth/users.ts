/** User management (SPEC 4.2, Admin): list, create, change role, reset password, disable/enable, delete. */
import { Router, type Request, type Response } from 'express';
import { BadRequestError } from '../../core/errors.js';
import type { Auditor } from '../../auth/audit.js';
import { publicUser, type UserService } from '../../auth/users.js';
import { auditSuccess, builtinService, idParam, requirePrincipal } from './context.js';
import { objectBody } from '../input.js';

export interface UsersDeps {
  builtin: boolean;
  users?: UserService;
  audit: Auditor;
}

export function usersRouter(d: UsersDeps): Router {
  const r = Router();
  const svc = (): UserService => builtinService(d.builtin, d.users);
  const audit = (req: Request, res: Response, action: string, target: string, details?: Record<string, string | boolean>) =>
    auditSuccess(d.audit, req, res, action, target, details);

  r.get('/users', async (_req, res) => {
    res.json({ users: await svc().list() });
  });

  r.post('/users', async (req, res) => {
    const users = svc();
    const { username, password, role } = objectBody(req);
    if (typeof username !== 'string') throw new BadRequestError('username must be a string');
    if (password === undefined) throw new BadRequestError('password is required');
    const user = await users.create({ username, password: password as string, role: role as never });
    await audit(req, res, 'user.create', user.username, { role: user.role });
    res.status(201).json({ user: publicUser(user) });
  });

  r.put('/users/:userId', async (req, res) => {
    const user = await svc().setRole(idParam(req, 'userId'), objectBody(req).role);
    await audit(req, res, 'user.role_change', user.username, { role: user.role });
    res.json({ user: publicUser(user) });
  });

  r.put('/users/:userId/password', async (req, res) => {
    const user = await svc().resetPassword(idParam(req, 'userId'), objectBody(req).newPassword);
    await audit(req, res, 'user.password_reset', user.username);
    res.json({ user: publicUser(user) });
  });

  r.patch('/users/:userId', async (req, res) => {
    const user = await svc().setDisabled(idParam(req, 'userId'), objectBody(req).isDisabled, requirePrincipal(res).id);
    await audit(req, res, user.isDisabled ? 'user.disable' : 'user.enable', user.username);
    res.json({ user: publicUser(user) });
  });

  r.delete('/users/:userId', async (req, res) => {
    const users = svc();
    const id = idParam(req, 'userId');
    const user = await users.get(id);
    await users.delete(id, requirePrincipal(res).id);
    await audit(req, res, 'user.delete', user.username);
    res.status(204).end();
  });

  return r;
}

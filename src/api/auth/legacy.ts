/** The legacy v1 API (SPEC 9). */
import { Router } from 'express';

/** /api/v1/*: there is no v1 API (SPEC 9: disabled under builtin mode); an explicit JSON 404. */
export function legacyRouter(): Router {
  const r = Router();
  r.use('/api/v1', (req, res) => {
    res.status(404).json({ code: 'not_found', message: `the v1 API is not available: use /api/v2 (${req.method} /api/v1${req.path})` });
  });
  return r;
}

/** GET /openapi.json: the OpenAPI 3.1 document of REST API v2 (public; the document is api/openapi.yaml). */
import { Router } from 'express';

export interface OpenApiDeps {
  /** The document as a JSON-ready object (loaded once by the wiring). */
  document(): Promise<object>;
}

export function createOpenApiRouter(d: OpenApiDeps): Router {
  const r = Router();
  r.get('/openapi.json', async (_req, res) => {
    const doc = await d.document();
    res.set('Cache-Control', 'no-cache').json(doc);
  });
  return r;
}

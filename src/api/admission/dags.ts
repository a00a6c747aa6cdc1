/**
 * The validating admission webhook of Dags (ARCHITECTURE "The resource model"): the API server sends
 * an AdmissionReview for every create and update of a Dag; an invalid one is refused with the same
 * messages `POST /dags/validate` gives. Served over TLS on a port of its own (main/server/admission.ts).
 */
import express, { type Express, type Request, type Response } from 'express';

export interface AdmissionDeps {
  /** The DAG validator of POST /dags/validate. */
  validate(text: string, name: string): { valid: boolean; errors: string[] };
  /** A Dag's spec as the text of a DAG file. */
  textOf(spec: Record<string, unknown>): string;
}

interface DagObject {
  metadata?: { name?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

interface AdmissionRequest {
  uid?: string;
  operation?: string;
  object?: DagObject | null;
}

const FILE_NAME_ANNOTATION = 'svc.io/file-name';

/** The answer to one review: allowed, or refused with the validator's messages (422 Invalid). */
export function reviewDag(req: AdmissionRequest, deps: AdmissionDeps): { uid: string; allowed: boolean; status?: { code: number; reason: string; message: string } } {
  const uid = req.uid ?? '';
  const obj = req.object;
  if (!obj || (req.operation !== 'CREATE' && req.operation !== 'UPDATE')) return { uid, allowed: true };
  const name = obj.metadata?.annotations?.[FILE_NAME_ANNOTATION] ?? obj.metadata?.name ?? 'dag';
  let errors: string[];
  try {
    errors = deps.validate(deps.textOf(obj.spec ?? {}), name).errors;
  } catch (e) {
    errors = [e instanceof Error ? e.message : String(e)];
  }
  if (errors.length === 0) return { uid, allowed: true };
  return { uid, allowed: false, status: { code: 422, reason: 'Invalid', message: `DAG ${name} is invalid: ${errors.join('; ')}` } };
}

export function admissionApp(deps: AdmissionDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '3mb' }));
  app.post('/validate/dags', (req: Request, res: Response) => {
    const body = req.body as { apiVersion?: string; request?: AdmissionRequest } | undefined;
    if (!body?.request) {
      res.status(400).json({ code: 'bad_request', message: 'expected an AdmissionReview with a request' });
      return;
    }
    res.json({ apiVersion: body.apiVersion ?? 'admission.k8s.io/v1', kind: 'AdmissionReview', response: reviewDag(body.request, deps) });
  });
  app.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
  return app;
}

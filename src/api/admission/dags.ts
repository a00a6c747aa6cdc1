/**
 * The validating admission webhook of Dags (ARCHITECTURE "The resource model"): the API server sends
 * an AdmissionReview for every create and update of a Dag; an invalid one is refused with the same
 * messages `POST /dags/validate` gives. Served over TLS on a port of its own (main/server/admission.ts).
 *
 * No object is let through unseen, whoever wrote it and whatever its annotations say: the text
 * validated is the one the store will read and run (`source`, the store's own reading, which takes the
 * text annotation only while it is bound to the spec). svc's own writes need no pass of their own:
 * the REST API saves only texts that validate (POST /dags, PUT spec), so admission allows them too.
 */
import express, { type Express, type Request, type Response } from 'express';

export interface DagObject {
  metadata?: { name?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

/**
 * What the store makes of a Dag object: its fileName (undefined when it cannot have one) and the text
 * it reads, and so runs.
 */
export interface DagSource {
  fileName: string | undefined;
  text: string;
}

export interface AdmissionDeps {
  /** The DAG validator of POST /dags/validate. */
  validate(text: string, name: string): Promise<{ valid: boolean; errors: string[] }>;
  source(obj: DagObject): DagSource;
}

interface AdmissionRequest {
  uid?: string;
  operation?: string;
  object?: DagObject | null;
}

/** The answer to one review: allowed, or refused with the validator's messages (422 Invalid). */
export async function reviewDag(req: AdmissionRequest, deps: AdmissionDeps): Promise<{ uid: string; allowed: boolean; status?: { code: number; reason: string; message: string } }> {
  const uid = req.uid ?? '';
  const obj = req.object;
  if (!obj || (req.operation !== 'CREATE' && req.operation !== 'UPDATE')) return { uid, allowed: true };
  let errors: string[];
  let name = obj.metadata?.name ?? 'dag';
  try {
    const src = deps.source(obj);
    if (src.fileName === undefined) return refuse(uid, `Dag ${name}: its name cannot be a DAG fileName (letters, digits, _ and -): name it so, or set the annotation svc.io/file-name`);
    name = src.fileName;
    errors = (await deps.validate(src.text, name)).errors;
  } catch (e) {
    errors = [e instanceof Error ? e.message : String(e)];
  }
  if (errors.length === 0) return { uid, allowed: true };
  return refuse(uid, `DAG ${name} is invalid: ${errors.join('; ')}`);
}

const refuse = (uid: string, message: string) => ({ uid, allowed: false, status: { code: 422, reason: 'Invalid', message } });

export function admissionApp(deps: AdmissionDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '3mb' }));
  app.post('/validate/dags', async (req: Request, res: Response) => {
    const body = req.body as { apiVersion?: string; request?: AdmissionRequest } | undefined;
    if (!body?.request) {
      res.status(400).json({ code: 'bad_request', message: 'expected an AdmissionReview with a request' });
      return;
    }
    res.json({ apiVersion: body.apiVersion ?? 'admission.k8s.io/v1', kind: 'AdmissionReview', response: await reviewDag(body.request, deps) });
  });
  app.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
  return app;
}

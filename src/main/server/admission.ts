/**
 * The admission webhook's TLS listener (kubernetes backend): on SVC_WEBHOOK_PORT with tls.crt and tls.key
 * from SVC_WEBHOOK_CERT_DIR (a Secret mounted by the chart, or a test's own certificate). Off without a
 * certificate directory.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileNameOf, textOf, type DagObject as StoredDag } from '../../adapters/kube/dag-object.js';
import { admissionApp, type DagObject, type DagSource } from '../../api/admission/dags.js';
import type { DagsApi } from '../../engine/services/api.js';

export interface AdmissionServer {
  port: number;
  close(): Promise<void>;
}

export async function startAdmission(o: { certDir: string; host: string; port: number; dags: Pick<DagsApi, 'validate'> }): Promise<AdmissionServer> {
  const [cert, key] = await Promise.all([readFile(join(o.certDir, 'tls.crt')), readFile(join(o.certDir, 'tls.key'))]);
  const app = admissionApp({ validate: (text, name) => o.dags.validate(text, name), source: sourceOf });
  const server: Server = createServer({ cert, key, minVersion: 'TLSv1.2' }, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

/** The Dag as the kubernetes DAG store reads it (dag-object.ts): one reading for the store and admission. */
function sourceOf(obj: DagObject): DagSource {
  const dag = { metadata: { name: '', ...obj.metadata }, spec: obj.spec ?? {} } as StoredDag;
  return { fileName: fileNameOf(dag), text: textOf(dag) };
}

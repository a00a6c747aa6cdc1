/**
 * The Dag admission webhook served by this test process (src/main/server/admission.ts) and registered
 * with the test bed's real API server for one namespace, over TLS on loopback: what the chart's
 * ValidatingWebhookConfiguration does in a cluster.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdmission, type AdmissionServer } from '../../src/main/server/admission.js';
import type { DagsApi } from '../../src/engine/services/api.js';
import { eventually, kubectl } from '../testbed/helpers.js';

/** A CA and a server certificate for 127.0.0.1 signed by it (what cert-manager or the chart would provide). */
function certificates(): { dir: string; ca: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-webhook-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=svc-test-ca']);
  run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=127.0.0.1']);
  run(['x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'tls.crt', '-days', '1',
    '-extfile', 'ext.cnf']);
  return { dir, ca: readFileSync(join(dir, 'ca.crt')).toString('base64') };
}

export interface Webhook {
  server: AdmissionServer;
  /** Unregisters the webhook and stops its server. */
  close(): Promise<void>;
}

/** Serves admission with `dags`' validator and registers it for Dags of namespace `ns` (failurePolicy Fail). */
export async function registerWebhook(ns: string, dags: Pick<DagsApi, 'validate'>): Promise<Webhook> {
  const { dir, ca } = certificates();
  const server = await startAdmission({ certDir: dir, host: '127.0.0.1', port: 0, dags });
  const name = `svc-dags-${ns}`;
  const config = {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name },
    webhooks: [{
      name: 'dags.svc.io', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail', timeoutSeconds: 5,
      clientConfig: { url: `https://127.0.0.1:${server.port}/validate/dags`, caBundle: ca },
      rules: [{ apiGroups: ['svc.io'], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['dags'] }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
    }],
  };
  const r = await kubectl(['apply', '-f', '-'], { input: JSON.stringify(config) });
  if (r.code !== 0) throw new Error(`registering the webhook failed: ${r.stderr}`);
  return {
    server,
    close: async () => {
      await kubectl(['delete', 'validatingwebhookconfiguration', name, '--ignore-not-found']);
      await server.close();
    },
  };
}

/**
 * Waits until the webhook answers for `ns` (its registration takes a moment to reach the API server's
 * admission chain): `probe`, an invalid Dag, is applied until the webhook refuses it.
 */
export async function waitForWebhook(probe: string): Promise<void> {
  await eventually('the webhook to refuse an invalid Dag', async () => {
    const r = await kubectl(['apply', '-f', '-'], { input: probe });
    if (r.code === 0) await kubectl(['delete', '-f', '-', '--ignore-not-found'], { input: probe });
    return r.code !== 0 && r.stderr.includes('admission webhook "dags.svc.io" denied the request');
  });
}

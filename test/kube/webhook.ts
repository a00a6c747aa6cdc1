/**
 * The Dag admission webhook served by this test process (src/main/server/admission.ts) and registered
 * with the test bed's real API server for one namespace, over TLS on loopback: what the chart's
 * ValidatingWebhookConfiguration does in a cluster.
 */
import { startAdmission, type AdmissionServer } from '../../src/main/server/admission.js';
import type { DagsApi } from '../../src/engine/services/api.js';
import { eventually, kubectl } from '../testbed/helpers.js';
import { certificates } from './webhook-certs.js';

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

/**
 * Pod IPs: a Node whose agent config gives a `podIP` (here the host's first non-loopback IPv4 address)
 * reports it for its Pods, so a Service's EndpointSlice gets the Pod, and the API server reaches an
 * admission webhook behind a Service through its endpoints (--enable-aggregator-routing).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiError, cluster, createNamespace, createPod, deleteNamespace, describeCluster, eventually, getPod, waitPhase } from './helpers.js';
import { freePort, nodeBinary, startAgent, stopAgent, type AgentInfo } from './lib/testbed.js';

const hostIPv4 = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a?.family === 'IPv4' && !a.internal)?.address;

/** Answers every AdmissionReview with a denial naming the Pod's IP. */
const HOOK = `
const https = require('node:https'), fs = require('node:fs');
https.createServer({ key: fs.readFileSync(process.env.TLS_KEY), cert: fs.readFileSync(process.env.TLS_CERT) }, (req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const review = JSON.parse(body);
    const status = { code: 403, message: 'denied by the test bed hook at ' + process.env.POD_IP };
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: false, status } }));
  });
}).listen(Number(process.env.PORT), '0.0.0.0');
`;
const WEB = `require('node:http').createServer((q, s) => s.end('hello from ' + process.env.POD_IP)).listen(Number(process.env.PORT), '0.0.0.0');`;

/** A CA and a serving certificate for the Service's DNS name, as the API server checks it. */
function certificates(dir: string, dns: string): { ca: string; cert: string; key: string } {
  const run = (args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=hook-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
  run(['req', '-x509', ...ec, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-keyout', 'tls.key', '-out', 'tls.crt', '-days', '2', '-subj', `/CN=${dns}`, '-addext', `subjectAltName=DNS:${dns}`, '-addext', 'extendedKeyUsage=serverAuth']);
  return { ca: path.join(dir, 'ca.crt'), cert: path.join(dir, 'tls.crt'), key: path.join(dir, 'tls.key') };
}

const NODE = 'node-ip';
const TAINT = { key: 'svc.testbed/dedicated', value: 'pod-ip', effect: 'NoSchedule' as const };

describeCluster(
  'Pod IPs, Services and webhooks',
  () => {
    let ns = '';
    let agent: AgentInfo | undefined;
    let dir = '';
    const hook = (): string => `svc-testbed-hook-${ns}`;
    beforeAll(async () => {
      ns = await createNamespace('podip');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-testbed-hook-'));
    });
    afterAll(async () => {
      const { kube, state } = cluster();
      await kube.delete(`/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${hook()}`).catch(() => undefined);
      await deleteNamespace(ns);
      if (agent && state) await stopAgent(state, agent);
      await kube.delete(`/api/v1/nodes/${NODE}`).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const available = hostIPv4 !== undefined || process.env.CI === 'true';
    if (!available) process.stderr.write('\n!!! SKIPPING "Pod IPs, Services and webhooks": the host has no non-loopback IPv4 address\n');
    (available ? test : test.skip)('a Pod on a Node with podIP gets EndpointSlices; HTTP and a webhook reach it', async () => {
      if (!hostIPv4) throw new Error('CI: the host has no non-loopback IPv4 address for a Node podIP');
      const { kube, state } = cluster();
      if (!state) throw new Error('no test bed state');
      agent = await startAgent(state, [{ name: NODE, labels: { 'svc.testbed/pool': 'ip' }, taints: [TAINT], podIP: hostIPv4 }]);
      const [webPort, hookPort] = [await freePort(), await freePort()];
      const tls = certificates(dir, `hook.${ns}.svc`);
      const podIP = { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } };
      const node = (name: string, script: string, env: object[]): object => ({ name, image: 'svc:dev', command: [nodeBinary(), '-e', script], env: [podIP, ...env] });
      await createPod(ns, {
        metadata: { name: 'web', labels: { app: 'web' } },
        spec: {
          nodeSelector: { 'svc.testbed/pool': 'ip' },
          tolerations: [{ ...TAINT, operator: 'Equal' }],
          containers: [
            node('web', WEB, [{ name: 'PORT', value: String(webPort) }]),
            node('hook', HOOK, [{ name: 'PORT', value: String(hookPort) }, { name: 'TLS_KEY', value: tls.key }, { name: 'TLS_CERT', value: tls.cert }]),
          ],
        },
      });
      const running = await waitPhase(ns, 'web', ['Running']);
      expect(running.spec.nodeName).toBe(NODE);
      const status = (await kube.get<{ status: { podIP: string; podIPs: { ip: string }[]; hostIP: string } }>(`/api/v1/namespaces/${ns}/pods/web`)).status;
      expect(status).toMatchObject({ podIP: hostIPv4, podIPs: [{ ip: hostIPv4 }], hostIP: '127.0.0.1' });

      for (const [name, port, target] of [['web', 80, webPort], ['hook', 443, hookPort]] as const) {
        await kube.post(`/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: 'web' }, ports: [{ name: 'p', port, targetPort: target }] } });
      }
      const slice = await eventually('the EndpointSlice of Service web', async () => {
        const list = await kube.get<{ items: { endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[]; ports?: { port: number }[] }[] }>(
          `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
          { labelSelector: 'kubernetes.io/service-name=web' },
        );
        return list.items.find((s) => s.endpoints?.some((e) => e.conditions?.ready));
      });
      expect(slice.endpoints?.[0]?.addresses).toEqual([hostIPv4]);
      expect(slice.ports?.[0]?.port).toBe(webPort);
      const answer = await eventually('HTTP from the Pod', () => fetch(`http://${hostIPv4}:${webPort}/`).then((r) => r.text()));
      expect(answer).toBe(`hello from ${hostIPv4}`);

      // A webhook behind Service hook: the API server resolves the Service to the Pod's endpoint.
      await kube.post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: hook() },
        webhooks: [
          {
            name: 'deny.svc.testbed',
            clientConfig: { service: { namespace: ns, name: 'hook', port: 443, path: '/validate' }, caBundle: fs.readFileSync(tls.ca).toString('base64') },
            rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
            failurePolicy: 'Fail',
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            timeoutSeconds: 5,
          },
        ],
      });
      const denied = await eventually('the webhook to deny a ConfigMap', async () => {
        try {
          await kube.post(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'c-' } });
          return undefined;
        } catch (e) {
          if (e instanceof ApiError && e.code === 403) return e;
          throw e; // e.g. 500 "failed calling webhook" while the hook cannot be reached: retried
        }
      });
      expect(denied.body).toContain(`denied by the test bed hook at ${hostIPv4}`);
      await kube.delete(`/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${hook()}`);
      await kube.delete(`/api/v1/namespaces/${ns}/pods/web`);
      await eventually('web deleted', () => getPod(ns, 'web').then(() => false, () => true));
    });
  },
  { testbedOnly: true },
);

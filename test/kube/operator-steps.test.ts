/**
 * http and jq steps on Kubernetes: each execution is a step Pod of the svc image running `svc run-step`
 * under the entry binary (core/run-step.ts): output between steps, the step's error message, secrets
 * masked in logs, and the request (expanded config) carried by the execution's Secret.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { describeCluster } from './env.js';
import { finished, kubeServer, podsOf, start } from './servers.js';

describeCluster('svc run-step: http and jq steps as Pods', () => {
  const srv = kubeServer({ SVC_POD_RETENTION: 'all' });
  const tokenFile = join(mkdtempSync(join(tmpdir(), 'svc-token-')), 'token');
  writeFileSync(tokenFile, 'tok-very-secret\n');
  let api: Server;
  let base = '';
  const seen: string[] = [];
  beforeAll(async () => {
    api = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      if (req.url === '/missing') { res.writeHead(404); res.end('gone'); return; }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ user: { name: 'ada' }, auth: req.headers.authorization ?? '' }));
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    await srv.start();
  });
  afterAll(async () => { await srv.stop(); api.close(); });

  test('an http response feeds a jq step; a 404 fails with its status; the token is masked', async () => {
    srv.dag('calls', [
      'secrets:', `  - { name: TOKEN, provider: file, key: ${tokenFile} }`,
      'steps:',
      '  - name: fetch', '    type: http', `    command: GET ${base}/user`, '    config:', '      silent: true', '      headers:', '        Authorization: Bearer ${TOKEN}', '    output: RESP',
      '  - name: pick', '    type: jq', '    command: .user.name', '    script: ${RESP}', '    config: { raw: true }', '    output: NAME',
      '  - name: missing', '    type: http', `    command: GET ${base}/missing`, '    continueOn: { failure: true }',
    ].join('\n'));
    const id = await start(srv, 'calls');
    const run = await finished(srv, 'calls', id, 120_000);
    const node = (n: string) => run.nodes.find((x: any) => x.step.name === n);
    expect(run.statusLabel).toBe('partially_succeeded');
    expect(node('pick').output).toBe('ada');
    expect(node('missing').error).toBe('http status 404 Not Found');
    expect(seen).toContain('GET /user Bearer tok-very-secret');
    const log = async (step: string) => (await srv.get(`/dag-runs/calls/${id}/steps/${step}/log?stream=stdout`)).body.content;
    expect(await log('fetch')).toBe('{"user":{"name":"ada"},"auth":"Bearer *******"}');
    const pods = await podsOf(srv.server.namespace!);
    const fetchPod = pods.find((p) => p.metadata.labels['svc.io/step'] === 'fetch')!;
    const c = fetchPod.spec.containers[0];
    expect(c.image).toMatch(/svc/);
    expect(c.command).toContain('--error-file-env');
    const request = c.env.find((e: any) => e.name === 'SVC_STEP_REQUEST');
    expect(request.valueFrom?.secretKeyRef).toBeDefined();
    expect(JSON.stringify(fetchPod)).not.toContain('tok-very-secret');
  });
});

/**
 * chat steps run by the operator on the test bed: each execution a step Pod of the svc image running
 * `svc run-step`, against a real OpenAI-compatible server on loopback (the test bed's Pods are processes
 * of this machine). The conversation of a dependency reaches the next Pod through the request, and the
 * run's secrets are masked before anything is sent (svc run-step reads them from the mask variable).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCluster } from './env.js';
import { entryCommands, finished, kubeServer, podsOf, start } from './servers.js';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';

describeCluster('chat steps as svc run-step Pods', () => {
  const srv = kubeServer({ SVC_POD_RETENTION: 'all' });
  const dir = mkdtempSync(join(tmpdir(), 'svc-kube-chat-'));
  let chat: ChatServer;
  beforeAll(async () => {
    chat = await startChatServer();
    writeFileSync(join(dir, 'token'), 'kube-chat-secret-1\n');
    await srv.start();
  }, 120_000);
  afterAll(async () => {
    await srv.stop();
    chat?.close();
  });

  test('a reply streams to the log and output; the next step inherits it; secrets never reach the server', async () => {
    srv.dag('talk', `
type: graph
secrets:
  - { name: TOKEN, provider: file, key: ${join(dir, 'token')} }
llm: { provider: local, model: tiny, baseURL: "${chat.url}", system: Be brief. }
steps:
  - name: first
    type: chat
    messages: [{ role: user, content: "token \${TOKEN}" }]
    output: FIRST
  - name: second
    type: chat
    depends: first
    messages: [{ role: user, content: again }]
    output: SECOND
`);
    const id = await start(srv, 'talk');
    const run = await finished(srv, 'talk', id, 180_000);
    const nodes = run.nodes as { step: { name: string }; error: string; output?: string }[];
    expect({ status: run.statusLabel, errors: nodes.map((n) => n.error).filter(Boolean) }).toEqual({ status: 'succeeded', errors: [] });
    expect(nodes.find((n) => n.step.name === 'first')!.output).toBe('You said: token *******');
    expect(JSON.stringify(chat.requests)).not.toContain('kube-chat-secret-1');
    expect(chat.requests.at(-1)!.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'token *******' }, { role: 'assistant', content: 'You said: token *******' },
      { role: 'user', content: 'again' },
    ]);
    const pods = await podsOf(srv.server.namespace!);
    for (const name of ['first', 'second']) {
      const pod = pods.find((p) => p.metadata.labels['svc.io/step'] === name)!;
      expect(entryCommands(pod)).toBe('[["svc","run-step"]]');
    }
  });
});

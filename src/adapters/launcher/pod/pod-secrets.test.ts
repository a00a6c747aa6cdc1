/**
 * No secret value in a step Pod's spec (SPEC 2.4): not in its args (a command with a secret expanded in
 * it), not in a plain env value (however the value serialises it: a JSON request escapes `"`, `\` and
 * newlines), not in its annotations. They reach the Pod from the execution's Secret.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { ExecRequest } from '../../../core/ports/executor.js';
import { decodeMasks } from '../../../core/run-step.js';
import { stepPod, type PodSettings } from './pod-spec.js';

const settings: PodSettings = { namespace: 'ns', stepImage: 'debian:stable-slim', entryImage: 'svc:1', entryDelivery: 'image-volume', stopGraceSeconds: 30 };
const owner = { name: 'run-1', uid: 'uid-1' };
const files = { stdout: '/d/out', stderr: '/d/err', result: '/d/r.json', root: '/d' };
const NASTY = 'q"u\\o\nte\'s';

function request(extra: Partial<ExecRequest>): ExecRequest {
  return {
    exec: { node: 'build', attempt: 0 }, step: { name: 'build', type: 'shell', signalOnStop: 'SIGTERM' },
    commands: ['echo hi'], shell: ['/bin/sh'], shellExplicit: false, env: { A: '1' }, workingDir: '/',
    identity: { dagName: 'dag', dagRunId: 'r1', attemptId: 'a1', node: 'build', attempt: 0 },
    merged: false, copies: {}, secrets: [], maxOutputSize: 1024, timeoutMs: 0, capture: false,
    ...extra,
  } as unknown as ExecRequest;
}

/** The Pod as the API server would store it, as text, with the JSON escaping undone where it can be. */
function podTexts(pod: V1Pod): string[] {
  const c = pod.spec!.containers[0]!;
  return [JSON.stringify(pod), ...(c.command ?? []), ...(c.args ?? []), ...(c.env ?? []).map((e) => e.value ?? ''), ...Object.values(pod.metadata!.annotations ?? {})];
}

const decodedSecret = (data: Record<string, string>, key: string): string => Buffer.from(data[key]!, 'base64').toString();

describe.each([['plain', 'hunter2-secret'], ['with a quote, backslash, newline', NASTY]])('a secret %s', (_n, secret) => {
  test('a container step command carrying it: not in the Pod, the commands come from the Secret', () => {
    const req = request({ step: { name: 'build', type: 'container', signalOnStop: 'SIGTERM' } as ExecRequest['step'], shell: [], commands: [`echo ${secret}`], secrets: [secret] });
    const { pod, secret: s } = stepPod(req, owner, files, settings);
    for (const t of podTexts(pod)) expect(t).not.toContain(secret);
    const ref = pod.spec!.containers[0]!.env!.find((e) => e.name === 'SVC_COMMANDS')!;
    expect(ref.valueFrom?.secretKeyRef?.name).toBe(pod.metadata!.name);
    expect(decodedSecret(s!.data!, ref.valueFrom!.secretKeyRef!.key)).toMatch(/^\[\["echo",/);
    expect(pod.spec!.containers[0]!.command).toEqual(expect.arrayContaining(['--commands-env', 'SVC_COMMANDS']));
  });

  test('an svc-code step whose JSON request carries it: the request comes from the Secret', () => {
    const req = request({ step: { name: 'h', type: 'http', signalOnStop: 'SIGTERM' } as ExecRequest['step'], config: { body: `pw=${secret}` }, secrets: [secret] });
    const { pod } = stepPod(req, owner, files, settings);
    for (const t of podTexts(pod)) expect(t).not.toContain(JSON.stringify(secret).slice(1, -1));
    for (const t of podTexts(pod)) expect(t).not.toContain(secret);
    expect(pod.spec!.containers[0]!.env!.find((e) => e.name === 'SVC_STEP_REQUEST')!.valueFrom?.secretKeyRef).toBeDefined();
  });

  test('the mask list keeps the value whole (a JSON array)', () => {
    const { secret: s } = stepPod(request({ env: { T: secret }, secrets: [secret, 'other'] }), owner, files, settings);
    expect(decodeMasks(decodedSecret(s!.data!, 'mask'))).toEqual([secret, 'other']);
  });
});

test('commands without a secret stay plain values', () => {
  const { pod, secret } = stepPod(request({}), owner, files, settings);
  expect(secret).toBeUndefined();
  expect(pod.spec!.containers[0]!.env).toContainEqual({ name: 'SVC_COMMANDS', value: JSON.stringify([['/bin/sh', '-c', 'echo hi']]) });
});

test('an unlogged probe (a secret file read): its stdout sealed with a key from the Secret, not in the Pod', () => {
  const { pod, secret } = stepPod(request({ unlogged: true, capture: true }), owner, { ...files, seal: 'a2V5LWtleS1rZXk=' }, settings);
  const c = pod.spec!.containers[0]!;
  expect(c.command).toEqual(expect.arrayContaining(['--quiet', '--seal-env', 'SVC_SEAL']));
  expect(c.env).toContainEqual({ name: 'SVC_SEAL', valueFrom: { secretKeyRef: { name: pod.metadata!.name, key: 'seal' } } });
  expect(decodedSecret(secret!.data!, 'seal')).toBe('a2V5LWtleS1rZXk=');
  expect(JSON.stringify(pod)).not.toContain('a2V5LWtleS1rZXk=');
});

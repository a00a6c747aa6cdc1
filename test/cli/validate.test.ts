/** `svc validate` and `svc dry` on DAGs with a `kubernetes` block: checked, and said to be ignored by the embedded engine. */
import { Sandbox } from '../helpers/cli.js';

const NOTE = 'applies on the kubernetes backend only (the embedded engine ignores it)';

describe('svc validate and dry: the kubernetes block', () => {
  const sb = new Sandbox();

  test('a DAG and steps with a block: valid, with a note naming where the block is', async () => {
    const f = sb.dag('pods', [
      'kubernetes:',
      '  resources: {requests: {cpu: 250m}, limits: {memory: 1Gi}}',
      '  tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]',
      'steps:',
      '  - {name: plain, command: echo a}',
      '  - name: mounted',
      '    command: cat /cfg/x',
      '    kubernetes:',
      '      volumes: [{name: cfg, configMap: {name: app}}]',
      '      volumeMounts: [{name: cfg, mountPath: /cfg}]',
      'handlerOn:',
      '  exit: {command: echo bye, kubernetes: {annotations: {team: a}}}',
    ].join('\n'));
    const v = await sb.run(['validate', f]);
    expect(v.code).toBe(0);
    expect(v.stdout).toContain('valid (DAG pods, 2 steps)');
    expect(v.stdout).toContain(`note: kubernetes (DAG; steps mounted, onExit): ${NOTE}`);
    const d = await sb.run(['dry', f]);
    expect(d.code).toBe(0);
    expect(d.stdout).toContain('nothing executed');
    expect(d.stdout).toContain(`note: kubernetes (DAG; steps mounted, onExit): ${NOTE}`);
  });

  test('only a step with a block: the note names the step; a DAG without one gets no note', async () => {
    const one = await sb.run(['validate', sb.dag('one', 'steps:\n  - {name: s, command: ls, kubernetes: {labels: {team: a}}}\n')]);
    expect(one.stdout).toContain(`note: kubernetes (step s): ${NOTE}`);
    const none = await sb.run(['validate', sb.dag('none', 'steps: [ls]\n')]);
    expect(none.code).toBe(0);
    expect(none.stdout).not.toContain('kubernetes');
  });

  test('svc\'s own labels, reserved volume names and undeclared mounts are refused with the field named', async () => {
    const f = sb.dag('bad', [
      'kubernetes:',
      '  labels: {svc.io/run: mine}',
      '  volumes: [{name: svc-data, emptyDir: {}}]',
      'steps:',
      '  - name: s',
      '    command: ls',
      '    kubernetes: {volumeMounts: [{name: nope, mountPath: /n}]}',
    ].join('\n'));
    const r = await sb.run(['validate', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('kubernetes.labels: "svc.io/run" is svc\'s own');
    expect(r.stderr).toContain('kubernetes.volumes[0].name: "svc-data" is the name of svc\'s own volume');
    expect(r.stderr).toContain('steps[0] (s).kubernetes.volumeMounts[0].name: "nope" is not a declared volume (declared: svc-data)');
  });
});

import { Problems, unique } from '../errors.js';
import { loadDagText } from '../load.js';
import { checkStepConfigs } from '../step-configs.js';
import { checkGha } from './gha.js';

/** The load errors plus the gha check's problems (passed in explicitly). */
function problems(yaml: string, checks = { gha: checkGha }): string[] {
  const file = loadDagText(yaml, { fileName: 'd' });
  const p = new Problems();
  if (file.dag) checkStepConfigs(file.dag, p, checks);
  return unique([...file.errors, ...p.list]);
}

describe('load-time check of gha steps', () => {
  test('local, remote and docker actions with a runner image; params a map or NAME=value pairs; aliases', () => {
    expect(problems(`
params: [ACTION: ./hello, IMAGE: busybox]
steps:
  - { name: local, type: gha, command: ./actions/hello, config: { runner: "\${IMAGE}" }, params: { who: world } }
  - { name: remote, type: github_action, command: actions/checkout@v4, config: { runner: node:24 }, params: "fetch-depth=1" }
  - { name: subdir, type: github-action, command: owner/repo/sub/dir@main, config: { runner: node:24 } }
  - { name: docker, type: gha, command: docker://alpine:3, config: { runner: node:24 } }
  - { name: var, type: gha, command: "\${ACTION}", config: { runner: node:24 } }
`)).toEqual([]);
  });

  test('a missing runner, a missing or malformed action are reported', () => {
    expect(problems(`
steps:
  - { name: norunner, type: gha, command: ./a }
  - { name: noref, type: gha, command: actions/checkout, config: { runner: x } }
  - { name: noaction, type: gha, config: { runner: x } }
`)).toEqual([
      'steps[0] (norunner).config.runner: is required for gha steps (the image act runs the action in)',
      'steps[1] (noref).command: "actions/checkout" is not an action reference: ./path, owner/repo[/path]@ref or docker://image',
      'steps[2] (noaction).command: is required for gha steps (the action: ./path, owner/repo@ref or docker://image)',
    ]);
  });

  test('the default checks include gha', () => {
    expect(problems('steps:\n  - { name: s, type: gha, command: ./a }\n', undefined)).toEqual([
      'steps[0] (s).config.runner: is required for gha steps (the image act runs the action in)',
    ]);
  });
});

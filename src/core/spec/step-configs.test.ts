import { loadDagText } from './load.js';

const errors = (yaml: string): string[] => loadDagText(yaml, { fileName: 'd' }).errors;

describe('load-time checks of step type config', () => {
  test('http needs "<METHOD> <url>"; jq needs an expression and a script; handlers are checked too', () => {
    expect(errors(`
type: graph
steps:
  - name: ok
    type: http
    command: GET \${URL}
  - name: nourl
    type: http
    command: GET
  - name: q
    type: jq
    command: .a
handlerOn:
  exit:
    type: jq
    script: '{}'
`)).toEqual([
      'steps[1] (nourl).command: must be "<METHOD> <url>" for http steps',
      'steps[2] (q).script: is required for jq steps (the JSON input)',
      'handlerOn.exit.command: is required for jq steps (the jq expression)',
    ]);
  });

  test('a valid DAG of these types has no problems', () => {
    expect(errors('steps:\n  - type: jq\n    command: .\n    script: "{}"\n  - type: http\n    command: POST http://x/\n')).toEqual([]);
  });
});

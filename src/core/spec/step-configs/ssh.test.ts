import { Problems, unique } from '../errors.js';
import { loadDagText } from '../load.js';
import { checkStepConfigs } from '../step-configs.js';
import { checkSsh } from './ssh.js';

/** The load errors plus the ssh check's problems (passed in explicitly, so the same before and after the registry has it). */
function problems(yaml: string): string[] {
  const file = loadDagText(yaml, { fileName: 'd' });
  const p = new Problems();
  if (file.dag) checkStepConfigs(file.dag, p, { ssh: checkSsh });
  return unique([...file.errors, ...p.list]);
}

describe('load-time check of ssh steps', () => {
  test('host and user come from the step or the DAG-level block; ${VAR} counts as given', () => {
    expect(problems(`
params: [HOST: h]
ssh: { host: "\${HOST}", user: deploy }
steps:
  - name: inherits
    command: uptime
  - name: own
    type: ssh
    config: { host: h2, user: u, port: 2222 }
    command: uptime
`)).toEqual([]);
  });

  test('a step-level block replaces the DAG one wholly: what it lacks is reported, saying why', () => {
    expect(problems(`
ssh: { host: h, user: deploy }
steps:
  - name: partial
    type: ssh
    config: { shell: bash }
    command: uptime
`)).toEqual([
      'steps[0] (partial).config.host: is required: this step sets its own ssh settings, which replace the DAG-level ssh block wholly',
      'steps[0] (partial).config.user: is required: this step sets its own ssh settings, which replace the DAG-level ssh block wholly',
    ]);
  });

  test('without any ssh settings host and user are missing; a bad port is reported; handlers are checked', () => {
    expect(problems(`
steps:
  - name: bare
    type: ssh
    command: uptime
  - name: port
    type: ssh
    config: { host: h, user: u, port: "http" }
    command: uptime
handlerOn:
  exit:
    type: ssh
    config: { host: h, port: 70000 }
    command: uptime
`)).toEqual([
      "steps[0] (bare).config.host: is required for ssh steps (in the step's config or the DAG-level ssh block)",
      "steps[0] (bare).config.user: is required for ssh steps (in the step's config or the DAG-level ssh block)",
      'steps[1] (port).config.port: "http" is not a port number (1-65535)',
      'handlerOn.exit.config.user: is required: this step sets its own ssh settings, which replace the DAG-level ssh block wholly',
      'handlerOn.exit.config.port: "70000" is not a port number (1-65535)',
    ]);
  });

  test('a command or a script is required (reported by the step parser)', () => {
    expect(problems('ssh: { host: h, user: u }\nsteps:\n  - name: nothing\n    type: ssh\n')).toEqual([
      'steps[0] (nothing).command: is required (or script)',
    ]);
  });
});

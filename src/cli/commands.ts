/** Every `svc` command's grammar (args.ts parses by it) and what `svc --help` lists. */
import type { CommandSpec } from './args.js';

const RUN_ID = { type: 'string', value: '<id>', help: 'the run (default: the latest)' } as const;
const NAMESPACE = { type: 'string', value: '<ns>', help: 'the Kubernetes namespace (default: the kubeconfig context\'s)' } as const;

export const COMMAND_SPECS: Record<string, CommandSpec> = {
  server: {
    usage: '[--backend embedded|kubernetes] [--namespace <ns>]', summary: 'the service: REST API, scheduler, queues (SVC_HOST, SVC_PORT)',
    options: { backend: { type: 'string', value: '<name>', help: 'embedded (default) or kubernetes' }, namespace: NAMESPACE }, positionals: [0, 0],
  },
  start: {
    usage: '<file | dag> [--params "..."] [--run-id <id>] [--follow] [params...]', summary: 'run a DAG in the foreground (a file, or a DAG of the DAGs directory)',
    options: {
      params: { type: 'string', value: '"K=V ..."', help: 'the run\'s params' }, 'run-id': { type: 'string', value: '<id>', help: 'the new run\'s id' },
      follow: { type: 'boolean', help: 'print the steps\' output as it comes, each line prefixed with its step' },
    },
    positionals: [1, Infinity],
  },
  enqueue: {
    usage: '<file | dag> [--params "..."] [--run-id <id>] [--queue <name>] [params...]', summary: 'put a run in its queue (a running svc server starts it)',
    options: {
      params: { type: 'string', value: '"K=V ..."', help: 'the run\'s params' }, 'run-id': { type: 'string', value: '<id>', help: 'the new run\'s id' },
      queue: { type: 'string', value: '<name>', help: 'a named queue instead of the DAG\'s own' },
    },
    positionals: [1, Infinity],
  },
  dequeue: { usage: '<dag> --run-id <id>', summary: 'take a queued run out of its queue', options: { 'run-id': { type: 'string', value: '<id>', help: 'the queued run' } }, positionals: [1, 1] },
  approve: {
    usage: '<dag> --step <name> [--run-id <id>] [--input NAME=value ...]', summary: 'approve a waiting hitl step',
    options: { step: { type: 'string', value: '<name>', help: 'the hitl step' }, 'run-id': RUN_ID, input: { type: 'string', value: 'NAME=value', help: 'an input the step asks for (repeatable)', multiple: true } },
    positionals: [1, 1],
  },
  reject: {
    usage: '<dag> --step <name> [--run-id <id>] [--reason <text>]', summary: 'reject a waiting hitl step (the run ends rejected)',
    options: { step: { type: 'string', value: '<name>', help: 'the hitl step' }, 'run-id': RUN_ID, reason: { type: 'string', value: '<text>', help: 'why' } },
    positionals: [1, 1],
  },
  status: { usage: '<dag> [--run-id <id>] [--json]', summary: 'show a run (latest by default)', options: { 'run-id': RUN_ID, json: { type: 'boolean', help: 'the run detail as JSON' } }, positionals: [1, 1] },
  list: { usage: '[--json]', summary: 'the DAGs of the DAGs directory, each with its latest run', options: { json: { type: 'boolean', help: 'as JSON' } }, positionals: [0, 0] },
  runs: {
    usage: '<dag> [--limit <n>] [--json]', summary: 'a DAG\'s runs, newest first',
    options: { limit: { type: 'string', value: '<n>', help: 'at most this many (default 20)' }, json: { type: 'boolean', help: 'as JSON' } }, positionals: [1, 1],
  },
  logs: {
    usage: '<dag> [--run-id <id>] [--step <name> [--stderr]] [--tail <n>] [--follow | --json]', summary: 'print a run\'s log, or a step\'s stdout (stderr)',
    options: {
      'run-id': RUN_ID, step: { type: 'string', value: '<name>', help: 'the step whose output to print' },
      stderr: { type: 'boolean', help: 'the step\'s stderr instead of its stdout' }, tail: { type: 'string', value: '<n>', help: 'only the last n lines' },
      follow: { type: 'boolean', help: 'keep printing as the log grows, until the run ends' },
      json: { type: 'boolean', help: 'the log page as JSON, as GET .../log returns it, with its run, step and stream' },
    },
    positionals: [1, 1],
  },
  outputs: { usage: '<dag> [--run-id <id>]', summary: 'print a run\'s outputs.json', options: { 'run-id': RUN_ID }, positionals: [1, 1] },
  stop: { usage: '<dag> [--run-id <id>]', summary: 'stop a running run', options: { 'run-id': RUN_ID }, positionals: [1, 1] },
  retry: { usage: '<dag> --run-id <id>', summary: 'retry a finished run (failed steps and downstream)', options: { 'run-id': { type: 'string', value: '<id>', help: 'the run to retry' } }, positionals: [1, 1] },
  resume: { usage: '<dag> [--run-id <id>]', summary: 'take over a run whose process died (kill -9, crash)', options: { 'run-id': RUN_ID }, positionals: [1, 1] },
  validate: {
    usage: '<file | dag> [--json]', summary: 'check a DAG, every problem listed',
    options: { json: { type: 'boolean', help: 'the result as JSON: valid, errors and the DAG, as POST /dags/validate returns them' } }, positionals: [1, 1],
  },
  dry: {
    usage: '<file | dag> [--json]', summary: 'show the plan without executing',
    options: { json: { type: 'boolean', help: 'the plan as JSON: valid, errors and the waves of steps' } }, positionals: [1, 1],
  },
  kube: { usage: 'manifest <file> [--namespace <ns>]', summary: 'print the Dag manifest of a DAG file (kubectl apply, GitOps)', options: { namespace: NAMESPACE }, positionals: [2, 2] },
  'run-step': { usage: '', summary: 'run one http, jq, ssh, ... step inside its step Pod (SVC_STEP_REQUEST; the operator\'s Pods use it)', options: {}, positionals: [0, 0] },
  operator: { usage: '[--namespace <ns>]', summary: 'run DagRuns as Pods (Kubernetes; SVC_KUBECONFIG, SVC_STEP_IMAGE, ...)', options: { namespace: NAMESPACE }, positionals: [0, 0] },
};

export function usage(): string {
  const lines = Object.entries(COMMAND_SPECS).map(([name, s]) => `  ${`${name} ${s.usage}`.padEnd(62)} ${s.summary}`);
  return ['usage: svc <command> [options]      (svc <command> --help, svc --version)', ...lines,
    'environment: SVC_DATA_DIR (state, default ~/.local/share/svc), SVC_DAGS_DIR (DAG files, default $SVC_DATA_DIR/dags)', ''].join('\n');
}

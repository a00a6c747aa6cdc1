import { readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Sandbox } from '../helpers/cli.js';

/** A DAG's run directories (not hidden entries: `.order`, the creation index of earlier versions). */
const runDirs = (dir: string): string[] => readdirSync(dir).filter((n) => !n.startsWith('.'));

const node = (detail: any, name: string) => detail.dagRun.nodes.find((n: any) => n.step.name === name);

function grepTree(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) hits.push(...grepTree(p, needle));
    else if (readFileSync(p, 'utf8').includes(needle)) hits.push(p);
  }
  return hits;
}

describe('variables, environment and secrets', () => {
  const SECRET = 'tok-3f9a8b7c6d5e';
  const sb = new Sandbox({ SVC_TEST_TOKEN: SECRET, UNRELATED_VAR: 'leak', SVC_VISIBLE: 'yes', LC_TEST: 'c' });

  test('secrets are injected, masked in logs, outputs.json and stored files', async () => {
    sb.file('dags/secret.txt', 'file-secret-value\n');
    const f = sb.dag('secrets', `
secrets:
  - name: API_TOKEN
    provider: env
    key: SVC_TEST_TOKEN
  - name: FILE_SECRET
    provider: file
    key: secret.txt
steps:
  - name: use
    command: echo "token=$API_TOKEN file=$FILE_SECRET"; echo "$API_TOKEN" >&2
    output: SHOWN
  - name: check
    command: '[ "$API_TOKEN" = "$SVC_TEST_TOKEN" ] && [ "$FILE_SECRET" = "$(cat secret.txt)" ]'
`);
    const r = await sb.run(['start', f]);
    expect(r.code).toBe(0);
    const d = await sb.json(['status', 'secrets', '--json']);
    expect(readFileSync(node(d, 'use').stdout, 'utf8')).toBe('token=******* file=*******\n');
    expect(readFileSync(node(d, 'use').stderr, 'utf8')).toBe('*******\n');
    expect((await sb.json(['outputs', 'secrets'])).outputs.shown).toBe('token=******* file=*******');
    expect(grepTree(sb.dataDir, SECRET)).toEqual([]);
    expect(grepTree(sb.dataDir, 'file-secret-value')).toEqual([]);
  });

  test('a secret that cannot be resolved fails the run with a clear error', async () => {
    const f = sb.dag('nosecret', `
secrets:
  - name: X
    provider: env
    key: SVC_NOT_SET_ANYWHERE
steps:
  - name: a
    command: "true"
`);
    expect((await sb.run(['start', f])).code).toBe(1);
    const d = await sb.json(['status', 'nosecret', '--json']);
    expect(d.dagRun.statusLabel).toBe('failed');
    expect(d.dagRun.error).toMatch(/SVC_NOT_SET_ANYWHERE/);
  });

  test('only PATH, HOME, LANG, TZ, SHELL and SVC_, LC_, DAG_ variables reach steps; others expand at load only', async () => {
    const f = sb.dag('envfilter', `
env:
  - FROM_SYSTEM: \${UNRELATED_VAR}
steps:
  - name: show
    command: env | sort
`);
    expect((await sb.run(['start', f])).code).toBe(0);
    const out = readFileSync(node(await sb.json(['status', 'envfilter', '--json']), 'show').stdout, 'utf8');
    expect(out).toMatch(/^SVC_VISIBLE=yes$/m);
    expect(out).toMatch(/^LC_TEST=c$/m);
    expect(out).toMatch(/^PATH=/m);
    expect(out).toMatch(/^FROM_SYSTEM=leak$/m);
    expect(out).not.toMatch(/^UNRELATED_VAR=/m);
    expect(out).toMatch(/^DAG_NAME=envfilter$/m);
    expect(out).toMatch(/^DAG_RUN_STEP_NAME=show$/m);
    expect(out).toMatch(/^SVC_PARAMS_JSON=/m);
  });

  test('dotenv files load in order, .env first; params from raw JSON are kept verbatim', async () => {
    sb.file('dags/.env', 'A=from-dotenv\nB=from-dotenv\n');
    sb.file('dags/extra.env', 'B=from-extra\n');
    const f = sb.dag('dotenv', `
dotenv: extra.env
params:
  - COUNT: 1
steps:
  - name: show
    command: echo "$A $B $COUNT $SVC_PARAMS_JSON"
`);
    expect((await sb.run(['start', f, '--params', '{"COUNT": 5}'])).code).toBe(0);
    const out = readFileSync(node(await sb.json(['status', 'dotenv', '--json']), 'show').stdout, 'utf8');
    expect(out).toBe('from-dotenv from-extra 5 {"COUNT": 5}\n');
  });

  test('JSON path reads of captured output and positional params', async () => {
    const f = sb.dag('jsonpath', `
params: first second
steps:
  - name: produce
    command: echo '{"user":{"name":"ada","roles":["admin","dev"]}}'
    output: DATA
  - name: consume
    command: echo "\${DATA.user.name} \${DATA.user.roles[1]} $1 $2"
    output: RESULT
`);
    expect((await sb.run(['start', f])).code).toBe(0);
    expect((await sb.json(['outputs', 'jsonpath'])).outputs.result).toBe('ada dev first second');
  });

  test('histRetentionDays 0 removes earlier finished runs when a new run starts', async () => {
    const f = sb.dag('ephemeral', `
histRetentionDays: 0
steps:
  - name: a
    command: "true"
`);
    await sb.run(['start', f, '--run-id', 'old']);
    await sb.run(['start', f, '--run-id', 'new']);
    expect(runDirs(join(sb.dataDir, 'runs', 'ephemeral'))).toEqual(['new']);
    writeFileSync(join(sb.dir, 'noop'), '');
  });

  test('histRetentionDays 1 removes runs that finished (and were last written) over a day ago, keeps the others', async () => {
    const f = sb.dag('daily', 'histRetentionDays: 1\nsteps:\n  - name: a\n    command: "true"\n');
    for (const id of ['old', 'recent']) await sb.run(['start', f, '--run-id', id]);
    const status = join(sb.dataDir, 'runs', 'daily', 'old', 'status.json');
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
    writeFileSync(status, readFileSync(status, 'utf8').replace(/"finishedAt":"[^"]+"/g, `"finishedAt":"${threeDaysAgo.toISOString()}"`));
    utimesSync(status, threeDaysAgo, threeDaysAgo);
    await sb.run(['start', f, '--run-id', 'new']);
    expect(runDirs(join(sb.dataDir, 'runs', 'daily')).sort()).toEqual(['new', 'recent']);
    // The run index (ADR 0016) keeps the rows of the runs that are left, and only those.
    const db = new DatabaseSync(join(sb.dataDir, 'index', 'runs.sqlite'), { readOnly: true });
    expect(db.prepare("SELECT id FROM runs WHERE dag = 'daily' ORDER BY id").all().map((r) => r.id)).toEqual(['new', 'recent']);
    db.close();
  });
});

/**
 * The mail step type and the run notifications (mailOn, step mailOnError) through the real embedded
 * engine, against a real SMTP server on loopback (test/helpers/smtp.ts) that keeps what it receives.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalRunControls } from '../../src/adapters/store/local/controls.js';
import { loadConfig } from '../../src/config/config.js';
import { RunStatus, runStatusLabel } from '../../src/core/run/status.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { embeddedDeps, loadDagFile } from '../../src/main/embedded.js';
import { inProcessLaunchers, STEP_RUNNERS } from '../../src/runtime/steps/index.js';
import { runMail } from '../../src/runtime/steps/mail.js';
import { closedPort, startSilentServer, startSmtp, type SmtpTestServer } from '../helpers/smtp.js';
import { runSteps } from '../helpers/steps.js';

/** Until ok() holds, for at most 5 s. */
async function until(ok: () => boolean): Promise<void> {
  for (const end = Date.now() + 5_000; !ok(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > end) throw new Error('condition not reached in 5 s');
  }
}

let smtp: SmtpTestServer;
beforeAll(async () => { smtp = await startSmtp(); });
afterAll(() => smtp.stop());
beforeEach(() => smtp.clear());

const runners = { mail: runMail };
/** The DAG-level smtp block of the test server (the password given, or the right one). */
const smtpBlock = (password = smtp.password, port = smtp.port): string =>
  `smtp:\n  host: ${smtp.host}\n  port: "${port}"\n  username: ${smtp.username}\n  password: "${password}"\n`;

describe('mail steps', () => {
  test('a plain message: envelope, headers and body arrive as written; the log line is captured by output', async () => {
    const r = await runSteps(`${smtpBlock()}
params:
  - WHO: ada
steps:
  - name: send
    type: mail
    config:
      from: svc@example.com
      to: \${WHO}@example.com
      subject: Hello \${WHO}
      message: |
        Dear \${WHO},
        the build is green.
    output: SENT
`, { runners });
    expect(r.status).toBe('succeeded');
    expect(smtp.received).toHaveLength(1);
    const m = smtp.received[0]!;
    expect(m).toMatchObject({ user: smtp.username, from: 'svc@example.com', to: ['ada@example.com'], subject: 'Hello ada', html: '' });
    expect(m.envelope).toEqual({ from: 'svc@example.com', to: ['ada@example.com'] });
    expect(m.text).toBe('Dear ada,\nthe build is green.\n');
    expect(m.parsed.headers.get('content-type')).toMatchObject({ value: 'text/plain' });
    expect(await r.log('send')).toBe('Sent "Hello ada" to ada@example.com\n');
    expect(await r.outputs()).toEqual({ sent: 'Sent "Hello ada" to ada@example.com' });
  });

  test('text/html to several recipients, with attachments relative to the working directory', async () => {
    const r = await runSteps(`${smtpBlock()}
steps:
  - name: send
    type: mail
    config:
      from: Reports <reports@example.com>
      to: [a@example.com, b@example.com, c@example.com]
      subject: Weekly report
      contentType: text/html
      message: <h1>Report</h1><p>All good.</p>
      attachments:
        - report.csv
        - notes.txt
`, { runners, files: { 'report.csv': 'name,count\nalpha,3\n', 'notes.txt': 'ünïcödé notes' } });
    expect(r.status).toBe('succeeded');
    const m = smtp.received[0]!;
    expect(m.to).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(m.envelope.to).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(m.from).toBe('reports@example.com');
    expect(m.html).toBe('<h1>Report</h1><p>All good.</p>');
    expect(m.attachments.map((a) => [a.filename, a.content])).toEqual([['report.csv', 'name,count\nalpha,3\n'], ['notes.txt', 'ünïcödé notes']]);
    expect(await r.log('send')).toBe('Sent "Weekly report" to a@example.com, b@example.com, c@example.com with 2 attachments\n');
  });

  test('a missing attachment, an empty recipient list and a bad content type fail before anything is sent', async () => {
    const r = await runSteps(`${smtpBlock()}
params:
  - NOBODY: ""
  - TYPE: application/pdf
steps:
  - name: missing
    type: mail
    config: {from: a@example.com, to: b@example.com, attachments: [nope.txt]}
  - name: nobody
    type: mail
    depends: []
    config:
      from: a@example.com
      to: \${NOBODY}
  - name: type
    type: mail
    depends: []
    config:
      from: a@example.com
      to: b@example.com
      contentType: \${TYPE}
`, { runners });
    expect(r.status).toBe('failed');
    expect(r.node('missing').error).toBe(`mail step: attachment nope.txt does not exist (${join(r.dir, 'nope.txt')})`);
    expect(r.node('nobody').error).toBe('mail step: config.to is required (an address or a list of addresses)');
    expect(r.node('type').error).toBe('mail step: config.contentType "application/pdf" is not supported (text/plain or text/html)');
    expect(smtp.received).toHaveLength(0);
  });

  test('a wrong password and a refused connection are clear step errors; secrets are masked in errors and logs, sent as written', async () => {
    const refused = await closedPort();
    const r = await runSteps(`${smtpBlock('${SMTP_PASSWORD}')}
secrets:
  - name: SMTP_PASSWORD
    provider: env
    key: SVC_TEST_SMTP_PASSWORD
steps:
  - name: login
    type: mail
    config: {from: a@example.com, to: b@example.com, subject: x}
`, { runners, env: { SVC_TEST_SMTP_PASSWORD: 'wrong-pw-123' } });
    expect(r.status).toBe('failed');
    expect(r.node('login').error).toMatch(/^mail step: the SMTP server 127\.0\.0\.1:\d+ refused the login of tester-\w+: 535 Invalid username or password$/);
    expect(`${JSON.stringify(r.run)}${await r.log('login')}${await r.log('login', 'stderr')}`).not.toContain('wrong-pw-123');
    expect(smtp.received).toHaveLength(0);

    smtp.clear();
    const ok = await runSteps(`${smtpBlock()}
secrets:
  - name: TOKEN
    provider: env
    key: SVC_TEST_TOKEN
steps:
  - name: secret
    type: mail
    config: {from: a@example.com, to: b@example.com, subject: "token \${TOKEN}", message: "the token is \${TOKEN}"}
`, { runners, env: { SVC_TEST_TOKEN: 'tok-very-secret' } });
    expect(ok.status).toBe('succeeded');
    expect(smtp.received[0]).toMatchObject({ subject: 'token tok-very-secret', text: 'the token is tok-very-secret\n' });
    expect(await ok.log('secret')).toBe('Sent "token *******" to b@example.com\n');

    const gone = await runSteps(`${smtpBlock('x', refused)}
steps:
  - name: send
    type: mail
    config: {from: a@example.com, to: b@example.com}
`, { runners });
    expect(gone.status).toBe('failed');
    expect(gone.node('send').error).toBe(`mail step: cannot reach the SMTP server 127.0.0.1:${refused}: connect ECONNREFUSED 127.0.0.1:${refused}`);
  });

  test('a server that never answers is given up at the step\'s timeout, its connection closed', async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      const r = await runSteps(`smtp:\n  host: 127.0.0.1\n  port: "${silent.port}"
steps:
  - name: send
    type: mail
    timeoutSec: 1
    config: {from: a@example.com, to: b@example.com}
`, { runners });
      expect(r.status).toBe('failed');
      expect(r.node('send').error).toContain('timed out');
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(silent.connections()).toBe(1);
      await until(() => silent.open() === 0);
    } finally {
      await silent.stop();
    }
  });

  test('examples/steps/mail.yaml sends its report', async () => {
    const out = mkdtempSync(join(tmpdir(), 'svc-mail-example-'));
    const params = `SMTP_PORT=${smtp.port} SMTP_USER=${smtp.username} SMTP_PASSWORD=${smtp.password} TO=team@example.org OUT_DIR=${out}`;
    const r = await runSteps(readFileSync('examples/steps/mail.yaml', 'utf8'), { runners, params });
    expect(r.status).toBe('succeeded');
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]).toMatchObject({ to: ['team@example.org'], subject: 'Daily report (3 lines)', html: '<h1>Daily report</h1><p>The report has 3 lines.</p>' });
    expect(smtp.received[0]!.attachments).toEqual([{ filename: 'report.csv', content: 'name,count\nalpha,3\nbeta,5\n', contentType: 'text/csv' }]);
  });
});

interface Warning { msg: string; fields: Record<string, unknown> | undefined }

/** Starts a run of `yaml` on the embedded engine (the SmtpNotifier of main/ wired in); `done` is its drive. */
async function startRun(yaml: string, o: { notifyTimeoutMs?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-notify-'));
  writeFileSync(join(dir, 'dag.yaml'), yaml);
  const config = loadConfig({ PATH: process.env.PATH, HOME: dir, SVC_DATA_DIR: join(dir, 'data'), SVC_DAGS_DIR: dir });
  const warnings: Warning[] = [];
  const log = { info: () => undefined, warn: (msg: string, fields?: Record<string, unknown>) => { warnings.push({ msg, fields }); }, error: () => undefined };
  const deps = embeddedDeps(config, log);
  const launchers = { ...deps.launchers, ...inProcessLaunchers(deps.logs, { ...STEP_RUNNERS, ...runners }) };
  const runs = new RunService({ ...deps, launchers, ...(o.notifyTimeoutMs !== undefined ? { notifyTimeoutMs: o.notifyTimeoutMs } : {}) });
  const loaded = await loadDagFile(join(dir, 'dag.yaml'));
  if (loaded.errors.length > 0) throw new Error(loaded.errors.join('; '));
  const run = await runs.create(loaded);
  const key = { dagName: run.spec.dagName, dagRunId: run.spec.dagRunId };
  const done = runs.drive(key).then((r) => ({ ...r, label: runStatusLabel(r.status.run.status) }));
  return { key, done, warnings, dataDir: config.dataDir };
}

describe('mail notifications', () => {
  test('mailOn.success sends infoMail when the run succeeds: prefix, DAG and status in the subject, a summary in the text', async () => {
    const { done, key, warnings } = await startRun(`name: nightly
${smtpBlock()}
mailOn: {success: true, failure: true}
infoMail: {from: svc@example.com, to: [dev@example.com, qa@example.com], prefix: "[ok]"}
errorMail: {from: svc@example.com, to: ops@example.com}
steps:
  - name: build
    command: echo built
  - name: test
    command: echo tested
`);
    const run = await done;
    expect(run.label).toBe('succeeded');
    expect(warnings).toEqual([]);
    expect(smtp.received).toHaveLength(1);
    const m = smtp.received[0]!;
    expect(m).toMatchObject({ from: 'svc@example.com', to: ['dev@example.com', 'qa@example.com'], subject: '[ok] nightly (succeeded)', attachments: [] });
    expect(m.text).toContain('nightly succeeded.');
    expect(m.text).toContain(`Run ID:   ${key.dagRunId}`);
    expect(m.text).toMatch(/Status: +succeeded/);
    expect(m.text).toMatch(/\n {2}build +succeeded +\d{4}-/);
    expect(m.text).toMatch(/\n {2}test +succeeded +\d{4}-/);
  });

  test('mailOn.failure sends errorMail with the steps\' logs attached (the failing step\'s stderr among them)', async () => {
    const { done } = await startRun(`name: broken
${smtpBlock()}
mailOn: {success: true, failure: true}
infoMail: {to: dev@example.com}
errorMail: {from: svc@example.com, to: ops@example.com, prefix: "[FAIL]", attachLogs: true}
steps:
  - name: fetch
    command: echo fetched
  - name: build
    command: 'echo compiling; echo "error: missing semicolon" >&2; exit 3'
`);
    expect((await done).label).toBe('failed');
    expect(smtp.received).toHaveLength(1);
    const m = smtp.received[0]!;
    expect(m).toMatchObject({ to: ['ops@example.com'], subject: '[FAIL] broken (failed)' });
    expect(m.text).toMatch(/\n {2}build +failed +\S+ +\S+ +exit status 3\n/);
    expect(m.attachments.map((a) => [a.filename, a.content])).toEqual([
      ['fetch.stdout.log', 'fetched\n'],
      ['build.stdout.log', 'compiling\n'],
      ['build.stderr.log', 'error: missing semicolon\n'],
    ]);
  });

  test('mailOn.wait sends waitMail when an approval step makes the run wait, with its prompt', async () => {
    const { done, key, dataDir } = await startRun(`name: release
${smtpBlock()}
params:
  - ENV: prod
mailOn: {wait: true}
waitMail: {from: svc@example.com, to: approvers@example.com, prefix: "[approve]"}
steps:
  - name: gate
    type: hitl
    config:
      prompt: Deploy to \${ENV}?
  - name: deploy
    command: echo deployed
    depends: [gate]
`);
    const [m] = await smtp.waitFor(1);
    expect(m).toMatchObject({ to: ['approvers@example.com'], subject: '[approve] release (waiting)' });
    expect(m!.text).toContain('release is waiting for approval of:\n  gate: Deploy to prod?');
    await new LocalRunControls({ dataDir }).push(key, { type: 'approve', node: 'gate', inputs: {} });
    expect((await done).label).toBe('succeeded');
    expect(smtp.received).toHaveLength(1);
  });

  test('a step with mailOnError mails errorMail when it fails, even though continueOn lets the run succeed', async () => {
    const { done } = await startRun(`name: lenient
${smtpBlock()}
mailOn: {failure: true}
errorMail: {from: svc@example.com, to: ops@example.com, attachLogs: true}
steps:
  - name: flaky
    command: echo "flake" >&2; exit 1
    continueOn: {failure: true}
    mailOnError: true
  - name: after
    command: echo fine
    depends: [flaky]
`);
    const run = await done;
    expect(run.status.run.status).toBe(RunStatus.PartiallySucceeded);
    expect(smtp.received).toHaveLength(1);
    const m = smtp.received[0]!;
    expect(m).toMatchObject({ to: ['ops@example.com'], subject: 'lenient (step flaky failed)' });
    expect(m.text).toContain('Step flaky of lenient failed: exit status 1');
    expect(m.attachments.map((a) => [a.filename, a.content])).toEqual([['flaky.stderr.log', 'flake\n']]);
  });

  test('a run that cannot even start (a secret that cannot be read) mails its failure too', async () => {
    const { done } = await startRun(`name: early
${smtpBlock()}
secrets:
  - name: TOKEN
    provider: env
    key: SVC_TEST_NOT_SET
mailOn: {failure: true}
errorMail: {from: svc@example.com, to: ops@example.com}
steps:
  - command: "true"
`);
    expect((await done).label).toBe('failed');
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]).toMatchObject({ to: ['ops@example.com'], subject: 'early (failed)' });
    expect(smtp.received[0]!.text).toMatch(/^early failed: .*SVC_TEST_NOT_SET/);
  });

  test('an SMTP server that refuses or never answers costs a warning, never the run, and at most the bound', async () => {
    const refused = await closedPort();
    const yaml = (port: number) => `name: quiet
smtp: {host: 127.0.0.1, port: "${port}"}
mailOn: {success: true}
infoMail: {to: dev@example.com}
steps:
  - command: "true"
`;
    const a = await startRun(yaml(refused));
    expect((await a.done).label).toBe('succeeded');
    expect(a.warnings).toEqual([{ msg: 'Failed to send a notification mail', fields: expect.objectContaining({ event: 'success', error: expect.stringContaining(`cannot reach the SMTP server 127.0.0.1:${refused}`) }) }]);

    const silent = await startSilentServer();
    try {
      const b = await startRun(yaml(silent.port), { notifyTimeoutMs: 500 });
      const started = Date.now();
      expect((await b.done).label).toBe('succeeded');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(silent.connections()).toBe(1);
      await until(() => silent.open() === 0);
      expect(b.warnings).toEqual([{ msg: 'Failed to send a notification mail', fields: expect.objectContaining({ error: 'no answer within 500 ms' }) }]);
    } finally {
      await silent.stop();
    }
  });
});

import { Problems } from '../errors.js';
import { loadDagText } from '../load.js';
import { effectiveConfig } from '../step-config.js';
import type { DagDefinition } from '../types.js';
import { checkMail, checkMailNotifications } from './mail.js';

function dagOf(yaml: string): DagDefinition {
  const loaded = loadDagText(yaml, { fileName: 'd' });
  if (!loaded.dag) throw new Error(loaded.errors.join('; '));
  return loaded.dag;
}

/** The problems of the DAG's first step, as `field: message`. */
function stepProblems(yaml: string): string[] {
  const dag = dagOf(yaml);
  const step = dag.steps[0]!;
  return checkMail(effectiveConfig(dag, step), step).map((p) => `${p.field}: ${p.message}`);
}

function notificationProblems(yaml: string): string[] {
  const problems = new Problems();
  checkMailNotifications(dagOf(yaml), problems);
  return problems.list;
}

const SMTP = 'smtp:\n  host: mail.example.com\n  port: "587"\n';

describe('mail step config', () => {
  test.each([
    ['to as a string', 'to: a@example.com'],
    ['to as a list', 'to: [a@example.com, b@example.com]'],
    ['variables count as given', 'to: ${TO}\n      contentType: ${TYPE}'],
    ['an HTML body with a charset', 'to: a@example.com\n      contentType: text/html; charset=utf-8\n      attachments: [report.csv]'],
    ['one attachment as a string', 'to: a@example.com\n      attachments: report.csv\n      subject: 42'],
  ])('%s is valid', (_name, fields) => {
    expect(stepProblems(`${SMTP}steps:\n  - type: mail\n    config:\n      from: me@example.com\n      ${fields}\n`)).toEqual([]);
  });

  test('recipients, sender and an SMTP host are required', () => {
    expect(stepProblems('steps:\n  - type: mail\n    config:\n      subject: hi\n')).toEqual([
      'config.to: is required for mail steps (an address or a list of addresses)',
      'config.from: is required for mail steps (the sender address)',
      'type: mail steps need an SMTP server: set smtp.host in the DAG',
    ]);
    expect(stepProblems(`${SMTP}steps:\n  - type: mail\n    config:\n      to: []\n      from: ""\n`)).toEqual([
      'config.to: is required for mail steps (an address or a list of addresses)',
      'config.from: is required for mail steps (the sender address)',
    ]);
  });

  test('wrong types, an unknown content type and unknown fields are reported', () => {
    expect(stepProblems(`${SMTP}steps:
  - type: mail
    config:
      to: [a@example.com, {name: b}]
      from: [me@example.com]
      message: {text: hi}
      contentType: application/pdf
      attachments: {file: a}
      body: hello
      host: smtp.other.com
`)).toEqual([
      'config.to: must be an address or a list of addresses',
      'config.from: must be an address',
      'config.message: must be a string',
      'config.contentType: must be text/plain or text/html',
      'config.attachments: must be a file path or a list of file paths',
      'config.body: is not a mail step field (to, from, subject, message, contentType, attachments)',
      'config.host: is not a mail step field (to, from, subject, message, contentType, attachments)',
    ]);
  });
});

describe('mail notifications', () => {
  test('each mailOn moment needs its block\'s recipients, and all of them an SMTP host', () => {
    expect(notificationProblems(`
mailOn: {success: true, failure: true, wait: true}
errorMail: {from: a@example.com}
infoMail: {to: ops@example.com}
steps:
  - command: "true"
`)).toEqual([
      'mailOn.failure: needs errorMail.to (who gets the mail)',
      'mailOn.wait: needs waitMail.to (who gets the mail)',
      'smtp.host: is required to send the mail that mailOn or mailOnError asks for',
    ]);
  });

  test('a step or handler with mailOnError needs errorMail.to', () => {
    expect(notificationProblems(`${SMTP}
steps:
  - name: build
    command: "true"
    mailOnError: true
handlerOn:
  exit:
    command: "true"
    mailOnError: true
`)).toEqual([
      'steps[0] (build).mailOnError: needs errorMail.to (who gets the mail)',
      'handlerOn.exit.mailOnError: needs errorMail.to (who gets the mail)',
    ]);
  });

  test('complete settings, and mail blocks that nothing turns on, are fine', () => {
    expect(notificationProblems(`${SMTP}
mailOn: {failure: true, success: false}
errorMail: {to: [ops@example.com], attachLogs: true}
steps:
  - command: "true"
    mailOnError: true
`)).toEqual([]);
    expect(notificationProblems('infoMail: {from: a@example.com}\nsteps:\n  - command: "true"\n')).toEqual([]);
  });
});

/**
 * Load-time checks of mail (SPEC 2.2, 2.6). A `mail` step needs recipients, a sender and an SMTP server
 * (the DAG's `smtp.host`: the server comes from there only, as in the reference); its fields have their
 * types, contentType is text/plain or text/html, and an unknown field is reported (a `body` meant as
 * `message` would otherwise send an empty mail). Notifications: `mailOn.<x>` and a step's `mailOnError`
 * need the matching mail block's `to`, and any of them the DAG's `smtp.host`; a mail that can never be
 * sent is an error now rather than a warning nobody reads when the run ends. Values written as `${VAR}`
 * count as given and are not type-checked.
 */
import { at, idx, stepLabel, type Problems } from '../errors.js';
import type { ConfigCheck, ConfigProblem } from '../step-configs.js';
import type { DagDefinition, StepDefinition } from '../types.js';

/** `smtp` is not written in a step: the DAG's block arrives under it (step-config.ts effectiveConfig). */
const MAIL_FIELDS: ReadonlySet<string> = new Set(['to', 'from', 'subject', 'message', 'contentType', 'attachments', 'smtp']);
const CONTENT_TYPES = ['text/plain', 'text/html'];

const templated = (v: unknown): boolean => typeof v === 'string' && v.includes('${');
const blank = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const isText = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const stringOrList = (v: unknown): boolean => typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'));

function hasSmtpHost(smtp: unknown): boolean {
  return smtp !== null && typeof smtp === 'object' && !blank((smtp as Record<string, unknown>).host);
}

export const checkMail: ConfigCheck = (config) => {
  const out: ConfigProblem[] = [];
  const add = (field: string, message: string): void => { out.push({ field: `config.${field}`, message }); };
  if (blank(config.to) || (Array.isArray(config.to) && config.to.length === 0)) add('to', 'is required for mail steps (an address or a list of addresses)');
  else if (!stringOrList(config.to)) add('to', 'must be an address or a list of addresses');
  if (blank(config.from)) add('from', 'is required for mail steps (the sender address)');
  else if (typeof config.from !== 'string') add('from', 'must be an address');
  for (const f of ['subject', 'message'] as const) if (!blank(config[f]) && !isText(config[f])) add(f, 'must be a string');
  const type = config.contentType;
  if (!blank(type) && !templated(type) && !(typeof type === 'string' && CONTENT_TYPES.includes(type.split(';')[0]!.trim().toLowerCase()))) {
    add('contentType', `must be ${CONTENT_TYPES.join(' or ')}`);
  }
  if (!blank(config.attachments) && !stringOrList(config.attachments)) add('attachments', 'must be a file path or a list of file paths');
  for (const k of Object.keys(config)) if (!MAIL_FIELDS.has(k)) add(k, 'is not a mail step field (to, from, subject, message, contentType, attachments)');
  if (!hasSmtpHost(config.smtp)) out.push({ field: 'type', message: 'mail steps need an SMTP server: set smtp.host in the DAG' });
  return out;
};

const BLOCKS = [['success', 'infoMail'], ['failure', 'errorMail'], ['wait', 'waitMail']] as const;

/** Adds the problems of the DAG's notification settings (mailOn, the mail blocks, steps' mailOnError). */
export function checkMailNotifications(dag: DagDefinition, problems: Problems): void {
  let wanted = false;
  for (const [moment, block] of BLOCKS) {
    if (!dag.mailOn[moment]) continue;
    wanted = true;
    if (!dag[block]?.to.length) problems.add(at('mailOn', moment), `needs ${block}.to (who gets the mail)`);
  }
  const onError = (path: string, step: StepDefinition): void => {
    if (!step.mailOnError) return;
    wanted = true;
    if (!dag.errorMail?.to.length) problems.add(at(path, 'mailOnError'), 'needs errorMail.to (who gets the mail)');
  };
  dag.steps.forEach((s, i) => onError(stepLabel(idx('steps', i), s.name), s));
  for (const [kind, s] of Object.entries(dag.handlerOn)) if (s) onError(at('handlerOn', kind), s);
  if (wanted && !hasSmtpHost(dag.smtp)) problems.add('smtp.host', 'is required to send the mail that mailOn or mailOnError asks for');
}

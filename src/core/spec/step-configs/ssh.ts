/**
 * Load-time check of ssh steps (SPEC 2.2, 2.6): a host and a user, from the step's own ssh settings or
 * the DAG-level ssh block (a step-level block replaces the DAG one wholly, so a step that sets any ssh
 * field must set these too), and a port that is a port number. Values written as `${VAR}` count as
 * given. A missing command or script is already reported for ssh steps by the step parser
 * (step-kind.ts), so it is not repeated here.
 */
import type { ConfigCheck, ConfigProblem } from '../step-configs.js';

function given(v: unknown): boolean {
  return (typeof v === 'string' && v.trim() !== '') || typeof v === 'number';
}

function portProblem(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '' || v === '0' || v === 0) return undefined;
  const s = String(v).trim();
  if (s.includes('$')) return undefined;
  const n = Number(s);
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? undefined : `"${s}" is not a port number (1-65535)`;
}

export const checkSsh: ConfigCheck = (config, step) => {
  const problems: ConfigProblem[] = [];
  const where = step.ssh
    ? 'is required: this step sets its own ssh settings, which replace the DAG-level ssh block wholly'
    : 'is required for ssh steps (in the step\'s config or the DAG-level ssh block)';
  for (const field of ['host', 'user']) if (!given(config[field])) problems.push({ field: `config.${field}`, message: where });
  const port = portProblem(config.port);
  if (port) problems.push({ field: 'config.port', message: port });
  return problems;
};

/**
 * Wiring of the web terminal (SPEC 5.2 terminal.enabled; docs/api.md "Web terminal", ADR 0022): its
 * routes on both backends, its WebSocket on the HTTP server, shells made by util-linux `script`. The
 * shell runs as the server's user, in the DAGs directory when there is one (the embedded backend; on
 * Kubernetes it is the API Pod's working directory), with the environment steps get (SPEC 2.7).
 */
import { existsSync } from 'node:fs';
import { ScriptTerminalSpawner } from '../../adapters/terminal/script-terminal.js';
import { terminalRouter } from '../../api/terminal/router.js';
import { TerminalSessions } from '../../api/terminal/sessions.js';
import { terminalUpgrade } from '../../api/terminal/upgrade.js';
import { TerminalTickets } from '../../auth/terminal-tickets.js';
import { ConfigError } from '../../config/config.js';
import { filterSystemEnv } from '../../core/vars/env.js';
import type { AuthArea } from './auth.js';
import type { AreaParts, ServerBase } from './base.js';

export async function wireTerminal(base: ServerBase, auth: AuthArea): Promise<AreaParts> {
  const { config, log } = base;
  const gate = { enabled: config.terminalEnabled, enforcing: auth.enforcing };
  if (gate.enabled) {
    const missing = await ScriptTerminalSpawner.available();
    if (missing) throw new ConfigError(`terminal.enabled: ${missing}`);
    if (!gate.enforcing) log.warn('The web terminal is on but opens for nobody: it needs authentication (SVC_AUTH_MODE=builtin or a static token)');
  }
  const tickets = new TerminalTickets();
  const sessions = new TerminalSessions({
    spawner: new ScriptTerminalSpawner(), audit: auth.audit, shell: config.defaultShell[0] ?? '/bin/sh',
    cwd: existsSync(config.dagsDir) ? config.dagsDir : process.cwd(),
    // The emulator is xterm.js: programs need TERM to draw; nothing else is added to the steps' environment.
    env: { ...filterSystemEnv(config.systemEnv), TERM: 'xterm-256color' },
    warn: (m, f) => log.warn(m, f), currentRole: (p) => auth.currentRole(p),
  });
  const origins = config.auth.oidc ? [new URL(config.auth.oidc.clientUrl).origin] : [];
  const upgrade = terminalUpgrade({ ...gate, tickets, sessions, audit: auth.audit, origins, allowedHosts: config.allowedHosts });
  return {
    routers: [terminalRouter({ ...gate, tickets })],
    attach: (server) => void server.on('upgrade', upgrade),
    stop: () => sessions.closeAll(),
  };
}

/** The only place that reads the environment: a frozen configuration with documented defaults. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface Config {
  /** SVC_DATA_DIR: state (runs, logs, outputs). Default ~/.local/share/svc (or $XDG_DATA_HOME/svc). */
  dataDir: string;
  /** SVC_DAGS_DIR: DAG files. Default <dataDir>/dags. */
  dagsDir: string;
  /** SVC_DEFAULT_SHELL, else $SHELL, else /bin/sh. */
  defaultShell: string[];
  /** SVC_LOG_LEVEL: info by default. */
  logLevel: string;
  /** The process environment, passed to the engine (which filters it for steps). */
  systemEnv: Record<string, string>;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const xdg = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  const dataDir = resolve(env.SVC_DATA_DIR || join(xdg, 'svc'));
  const dagsDir = resolve(env.SVC_DAGS_DIR || join(dataDir, 'dags'));
  const shell = (env.SVC_DEFAULT_SHELL || env.SHELL || '/bin/sh').trim().split(/\s+/);
  const systemEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  return Object.freeze({ dataDir, dagsDir, defaultShell: shell, logLevel: env.SVC_LOG_LEVEL || 'info', systemEnv });
}

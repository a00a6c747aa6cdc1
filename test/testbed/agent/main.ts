/**
 * Node agent entry point: `node agent/main.js <config.json>` (see AgentConfig). Runs until SIGTERM/SIGINT.
 */
import fs from 'node:fs';
import { Agent, type AgentConfig } from './agent.js';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: main.js <agent-config.json>\n');
  process.exit(2);
}
const cfg = JSON.parse(fs.readFileSync(file, 'utf8')) as AgentConfig;
const agent = new Agent(cfg);
let stopping = false;
const stop = (sig: string): void => {
  if (stopping) return;
  stopping = true;
  agent.log(`${sig}: stopping`);
  void agent.stop().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 10000).unref();
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
agent.start().catch((e: Error) => {
  agent.log(`failed to start: ${e.stack ?? e.message}`);
  process.exit(1);
});

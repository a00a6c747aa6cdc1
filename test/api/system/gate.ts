/** A step that blocks until its test opens the gate; afterAll always opens it, so no step outlives a test. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/server.js';

export const gatedSteps = (srv: TestServer): string =>
  `steps:\n  - command: sh -c 'until [ -f "${join(srv.dir, 'go')}" ]; do sleep 0.05; done'\n`;

export const openGate = (srv: TestServer): void => writeFileSync(join(srv.dir, 'go'), '');

export async function openAndStop(srv: TestServer | undefined): Promise<void> {
  if (!srv) return;
  openGate(srv);
  await srv.stop();
}

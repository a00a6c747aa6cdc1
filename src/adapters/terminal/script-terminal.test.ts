/** The `script` terminal adapter on this machine: a shell that is gone before anyone listens still reports its end. */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptTerminalSpawner } from './script-terminal.js';

test('the exit of a shell that ended before onExit was called is reported, with its code', async () => {
  const shell = join(mkdtempSync(join(tmpdir(), 'svc-term-')), 'brief-shell');
  writeFileSync(shell, '#!/bin/sh\nsleep 0.3\nexit 7\n');
  chmodSync(shell, 0o755);
  const term = await new ScriptTerminalSpawner().spawn({ shell, cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, size: { cols: 80, rows: 24 } });
  await new Promise((r) => setTimeout(r, 1500));
  const code = await new Promise((resolve) => term.onExit(resolve));
  expect(code).toBe(7);
});

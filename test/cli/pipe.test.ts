/** A reader that closes the pipe early (`svc status ... | head`) ends the output, not the process. */
import { spawn } from 'node:child_process';
import { BIN, Sandbox } from '../helpers/cli.js';

describe('svc writing into a pipe whose reader went away', () => {
  const sb = new Sandbox();

  test('status --json of a large run, read one chunk and closed: exit 0, no crash', async () => {
    const steps = Array.from({ length: 300 }, (_, i) => `  - name: step-with-a-long-name-${i}\n    command: "true"\n    depends: []\n`).join('');
    const f = sb.dag('wide', `type: graph\nmaxActiveSteps: 8\nsteps:\n${steps}`);
    expect((await sb.run(['start', f])).code).toBe(0);
    const child = spawn(process.execPath, [BIN, 'status', 'wide', '--json'], { env: sb.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });

  test('a foreground start whose progress reader went away still finishes the run and reports it in its exit code', async () => {
    const steps = Array.from({ length: 60 }, (_, i) => `  - name: s${i}\n    command: "true"\n`).join('');
    const f = sb.dag('piped', `steps:\n${steps}`);
    const child = spawn(process.execPath, [BIN, 'start', f], { env: sb.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const d = await sb.json(['status', 'piped', '--json']);
    expect(d.dagRun.statusLabel).toBe('succeeded');
    expect(d.dagRun.nodes.every((n: { statusLabel: string }) => n.statusLabel === 'succeeded')).toBe(true);
  });
});

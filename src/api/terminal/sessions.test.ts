/**
 * TerminalSessions over a real WebSocket on a loopback port, with a terminal played in memory: what the
 * browser sends while the shell starts arrives in order; an unanswered heartbeat drops the socket and kills
 * the shell; an answered one keeps an idle session open.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { Auditor } from '../../auth/audit.js';
import type { AuditEntry } from '../../core/ports/auth-stores.js';
import type { TerminalProcess, TerminalSize, TerminalSpawner } from '../../core/ports/terminal.js';
import { TerminalSessions } from './sessions.js';

class MemoryTerminal implements TerminalProcess {
  readonly pid = 4242;
  readonly written: string[] = [];
  readonly sizes: TerminalSize[] = [];
  kills = 0;
  private exit: ((code: number | null) => void) | undefined;
  write(data: Buffer): void { this.written.push(String(data)); }
  resize(size: TerminalSize): void { this.sizes.push(size); }
  paused = 0;
  resumed = 0;
  private data: ((chunk: Buffer) => void) | undefined;
  onData(fn: (chunk: Buffer) => void): void { this.data = fn; }
  get listening(): boolean { return this.data !== undefined; }
  print(chunk: Buffer): void { this.data?.(chunk); }
  pause(): void { this.paused++; }
  resume(): void { this.resumed++; }
  onExit(fn: (code: number | null) => void): void { this.exit = fn; }
  kill(): void {
    this.kills++;
    this.exit?.(null);
    this.exit = undefined;
  }
}

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

/** A server whose every WebSocket is a session; the shell takes `startMs` to start. */
async function serve(startMs: number, heartbeatMs: number) {
  const term = new MemoryTerminal();
  const audit: AuditEntry[] = [];
  const spawner: TerminalSpawner = { spawn: () => new Promise((r) => setTimeout(() => r(term), startMs)) };
  const sessions = new TerminalSessions({
    spawner, audit: new Auditor({ append: async (e) => void audit.push(e) }, () => undefined), shell: '/bin/sh', cwd: '/', env: {}, warn: () => undefined, heartbeatMs,
  });
  const wss = new WebSocketServer({ noServer: true });
  const server = createServer();
  servers.push(server);
  server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => void sessions.open(ws, { actor: 'ann' }, { cols: 80, rows: 24 })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { term, audit, url };
}

/** Waits (bounded) until `ok` holds. */
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(ok()).toBe(true);
}

const opened = (ws: WebSocket) => new Promise((r) => ws.once('open', r));
const closed = (ws: WebSocket) => new Promise<number>((r) => ws.once('close', (code) => r(code)));

test('keystrokes and resizes sent while the shell starts reach it, in order', async () => {
  const { term, url } = await serve(200, 60_000);
  const ws = new WebSocket(url);
  await opened(ws);
  ws.send(Buffer.from('ls\n'));
  ws.send(JSON.stringify({ type: 'resize', cols: 100, rows: 30 }));
  ws.send(Buffer.from('pwd\n'));
  await new Promise((r) => setTimeout(r, 400));
  expect(term.written).toEqual(['ls\n', 'pwd\n']);
  expect(term.sizes).toEqual([{ cols: 100, rows: 30 }]);
  ws.close();
  await closed(ws);
});

test('a client that stops answering pings is dropped and its shell killed; one that answers stays', async () => {
  const silent = await serve(0, 100);
  const gone = new WebSocket(silent.url, { autoPong: false });
  await opened(gone);
  expect(await closed(gone)).toBe(1006);
  // The client sees the connection end before the server's socket has reported its own close.
  for (let i = 0; i < 50 && silent.audit.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  expect(silent.term.kills).toBeGreaterThan(0);
  expect(silent.audit.map((e) => `${e.action} ${e.actor}`)).toEqual(['terminal.start ann', 'terminal.end ann']);
  expect(silent.audit[1]!.details).toMatchObject({ killed: true, durationMs: expect.any(Number) });

  const live = await serve(0, 100);
  const ws = new WebSocket(live.url);
  await opened(ws);
  await new Promise((r) => setTimeout(r, 500));
  expect([ws.readyState, live.term.kills]).toEqual([WebSocket.OPEN, 0]);
  ws.close();
  await closed(ws);
});

test('a socket that falls behind pauses the shell\'s output, which resumes once it caught up', async () => {
  const { term, url } = await serve(0, 60_000);
  const ws = new WebSocket(url);
  ws.pause(); // the client reads nothing for now
  await opened(ws);
  await until(() => term.listening);
  for (let i = 0; i < 64 && term.paused === 0; i++) term.print(Buffer.alloc(256 * 1024, 120));
  expect([term.paused, term.resumed]).toEqual([1, 0]);
  let got = 0;
  ws.on('message', (d: Buffer) => { got += d.length; });
  ws.resume();
  await until(() => term.resumed === 1);
  expect(got).toBeGreaterThan(0);
  ws.close();
  await closed(ws);
});

/**
 * The ssh step type through the real embedded engine against a real OpenSSH sshd on loopback
 * (test/helpers/sshd.ts): key, password and default-key logins, host key checking, shell, script,
 * command lists, exit codes, stderr, outputs, the DAG-level block, stop and timeout, secrets, retries.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecRequest } from '../../src/core/ports/executor.js';
import { runSsh } from '../../src/runtime/steps/ssh.js';
import { freePort } from '../helpers/needs.js';
import { describeSshd, passwordSkipReason, startSshd, type SshdServer } from '../helpers/sshd.js';
import { runSteps, type StepsOptions } from '../helpers/steps.js';

const runners = { ssh: runSsh };
const run = (yaml: string, o: StepsOptions = {}) => runSteps(yaml, { runners, ...o });
const made: string[] = [];
/** A temp dir, removed after the file's tests. */
function tmp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
afterAll(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A known_hosts file with these lines. */
function knownHosts(...lines: string[]): string {
  const file = join(tmp('svc-kh-'), 'known_hosts');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Runs a DAG with HOME pointing at `home` (the runner looks up ~/.ssh there). */
const withHome = (home: string, yaml: string): ReturnType<typeof run> => run(yaml, { env: { HOME: home } });

/** A HOME whose ~/.ssh holds these files (name -> source file). */
function homeWith(files: Record<string, string>): string {
  const home = tmp('svc-home-');
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  for (const [name, src] of Object.entries(files)) copyFileSync(src, join(home, '.ssh', name));
  return home;
}

/** A sleep length no other process on the machine is likely to use: its command line marks the remote process. */
const markers: string[] = [];
function uniqueSeconds(): number {
  const n = 100_000 + Math.floor(Math.random() * 800_000);
  markers.push(`sleep ${n}`);
  return n;
}

/** Ends what a failed stop test left running (only the processes of this file's markers). */
function killLeftovers(): void {
  for (const m of markers) {
    for (const line of remoteProcesses(m).split('\n')) {
      const pid = Number(line.split(' ')[0]);
      if (pid > 0) try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
    }
  }
}

const remoteProcesses = (marker: string): string => {
  try {
    return execFileSync('pgrep', ['-af', marker], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(marker) && !l.includes('pgrep')).join('\n');
  } catch {
    return '';
  }
};

async function gone(marker: string, withinMs: number): Promise<string> {
  const until = Date.now() + withinMs;
  while (Date.now() < until && remoteProcesses(marker) !== '') await sleep(50);
  return remoteProcesses(marker);
}

describeSshd('ssh steps', () => {
  let s: SshdServer;
  let conn = '';
  beforeAll(async () => {
    s = await startSshd();
    conn = `host: 127.0.0.1, port: "${s.port}", user: ${s.user}, key: ${s.keys.ed25519}, knownHostFile: ${knownHosts(s.knownHostsLine)}`;
  });
  afterAll(async () => { await s?.stop(); });

  test('key login; stdout and stderr kept apart; the remote exit status is the exit code', async () => {
    const r = await run(`
type: graph
steps:
  - name: ok
    type: ssh
    config: { ${conn} }
    command: echo "to out"; echo "to err" >&2; echo "user $(id -un)"
  - name: exits
    type: ssh
    config: { ${conn} }
    command: echo before; exit 7
`);
    expect(r.node('ok').error ?? '').toBe('');
    expect(await r.log('ok')).toBe(`to out\nuser ${s.user}\n`);
    expect(await r.log('ok', 'stderr')).toBe('to err\n');
    expect(r.node('exits')).toMatchObject({ exitCode: 7, error: 'exit status 7' });
    expect(await r.log('exits')).toBe('before\n');
    expect(r.status).toBe('failed');
  });

  test('a command list runs in turn and stops at the first failure', async () => {
    const r = await run(`
steps:
  - name: list
    type: ssh
    config: { ${conn} }
    command:
      - echo one
      - sh -c 'echo two; exit 4'
      - echo three
`);
    expect(r.node('list')).toMatchObject({ exitCode: 4, error: 'exit status 4' });
    expect(await r.log('list')).toBe('one\ntwo\n');
  });

  test('shell: the command runs as <shell> -c <command>, quoting intact', async () => {
    const r = await run(`
type: graph
steps:
  - name: bash
    type: ssh
    config: { ${conn}, shell: bash -o pipefail }
    command: printf '%s|' "$BASH_VERSION" "it's" "$0" | cut -d'|' -f2,3
  - name: pipefail
    type: ssh
    config: { ${conn}, shell: bash -o pipefail }
    command: false | true
`);
    expect(await r.log('bash')).toBe("it's|bash\n");
    expect(r.node('pipefail')).toMatchObject({ exitCode: 1, error: 'exit status 1' });
  });

  test('script: without shell by /bin/sh, with shell by it, by its shebang, or by the command; stdin reads see EOF', async () => {
    const pathFile = join(tmp('svc-ssh-path-'), 'path');
    const r = await run(`
type: graph
steps:
  - name: plain
    type: ssh
    config: { ${conn} }
    script: |
      set -- a b
      echo "args $#"
      if read line; then echo "read $line"; else echo "stdin empty"; fi
      echo "$0" > ${pathFile}
      exit 5
  - name: shell
    type: ssh
    config: { ${conn}, shell: bash -e }
    script: |
      arr=(x y z)
      echo "bash array \${#arr[@]}"
      false
      echo unreachable
  - name: shebang
    type: ssh
    config: { ${conn} }
    script: |
      #!/usr/bin/env python3
      import sys
      print("python", sys.version_info[0])
  - name: interpreter
    type: ssh
    config: { ${conn} }
    command: python3
    script: print(6 * 7)
`);
    expect(r.node('plain')).toMatchObject({ exitCode: 5, error: 'exit status 5' });
    expect(await r.log('plain')).toBe('args 2\nstdin empty\n');
    const path = readFileSync(pathFile, 'utf8').trim();
    expect(path).toMatch(/svc-ssh\./);
    expect(existsSync(path)).toBe(false);
    expect(r.node('shell')).toMatchObject({ exitCode: 1 });
    expect(await r.log('shell')).toBe('bash array 3\n');
    expect(await r.log('shebang')).toBe('python 3\n');
    expect(await r.log('interpreter')).toBe('42\n');
  });

  test('a step dir is entered remotely; outputs reach later steps; ${VAR} is substituted before sending', async () => {
    const r = await run(`
params:
  - WHERE: /tmp
env:
  - GREETING: hello
steps:
  - name: remote
    type: ssh
    dir: \${WHERE}
    config: { ${conn} }
    command: echo "\${GREETING} from $(pwd)"
    output: REMOTE
  - name: local
    type: shell
    command: echo "got \${REMOTE}"
`);
    expect(r.status).toBe('succeeded');
    expect(await r.log('local')).toBe('got hello from /tmp\n');
  });

  test('the DAG-level block is inherited by steps without a type; a step-level block replaces it wholly', async () => {
    const home = homeWith({});
    const r = await withHome(home, `
type: graph
ssh:
  host: 127.0.0.1
  port: "${s.port}"
  user: ${s.user}
  key: ${s.keys.ed25519}
  strictHostKey: false
steps:
  - name: inherits
    command: echo inherited
  - name: replaces
    type: ssh
    config:
      host: 127.0.0.1
      port: "${s.port}"
      user: ${s.user}
      key: ${s.keys.ed25519}
    command: echo never
`);
    expect(await r.log('inherits')).toBe('inherited\n');
    // strictHostKey: false was not inherited: the default (true) with the default known_hosts applies.
    expect(r.node('replaces').error).toContain(`the known hosts file ${join(home, '.ssh', 'known_hosts')} does not exist`);
  });

  test('host keys: known (plain or hashed) accepted; unknown, mismatched and missing files refused; strictHostKey false accepts any', async () => {
    const hashed = knownHosts(s.knownHostsLine);
    execFileSync('ssh-keygen', ['-H', '-f', hashed], { stdio: 'ignore' });
    expect(readFileSync(hashed, 'utf8')).toMatch(/^\|1\|/);
    const stranger = readFileSync(`${s.keys.stranger}.pub`, 'utf8').split(' ').slice(0, 2).join(' ');
    const base = `host: 127.0.0.1, port: "${s.port}", user: ${s.user}, key: ${s.keys.ed25519}`;
    const r = await run(`
type: graph
steps:
  - { name: plain, type: ssh, command: echo ok, config: { ${base}, knownHostFile: ${knownHosts(`127.0.0.1 ${stranger}`, `[127.0.0.1]:${s.port},other ${s.hostKey}`)} } }
  - { name: hashed, type: ssh, command: echo ok, config: { ${base}, knownHostFile: ${hashed} } }
  - { name: unknown, type: ssh, command: echo no, config: { ${base}, knownHostFile: ${knownHosts(`[127.0.0.1]:1 ${s.hostKey}`)} } }
  - { name: mismatch, type: ssh, command: echo no, config: { ${base}, knownHostFile: ${knownHosts(`[127.0.0.1]:${s.port} ${stranger}`)} } }
  - { name: missing, type: ssh, command: echo no, config: { ${base}, knownHostFile: /nonexistent/known_hosts } }
  - { name: lax, type: ssh, command: echo ok, config: { ${base}, knownHostFile: /nonexistent/known_hosts, strictHostKey: false } }
`);
    expect(await r.log('plain')).toBe('ok\n');
    expect(await r.log('hashed')).toBe('ok\n');
    expect(r.node('unknown').error).toContain(`ssh step: host key of 127.0.0.1:${s.port} is unknown`);
    expect(r.node('mismatch').error).toContain(`ssh step: host key mismatch for 127.0.0.1:${s.port}`);
    expect(r.node('missing').error).toContain('the known hosts file /nonexistent/known_hosts does not exist');
    expect(await r.log('lax')).toBe('ok\n');
    expect(await r.log('unknown')).toBe('');
  });

  test('default keys: ~/.ssh/id_ed25519, id_ecdsa, id_rsa are tried in turn; none is a clear error', async () => {
    const yaml = `
steps:
  - name: default
    type: ssh
    config: { host: 127.0.0.1, port: "${s.port}", user: ${s.user}, strictHostKey: false }
    command: echo logged in
`;
    // id_ed25519 is a key the server does not know: the login goes on to id_rsa.
    const found = await withHome(homeWith({ id_ed25519: s.keys.stranger, id_rsa: s.keys.rsa }), yaml);
    expect(await found.log('default')).toBe('logged in\n');
    const home = homeWith({});
    const none = await withHome(home, yaml);
    expect(none.node('default').error).toContain(`no way to log in to ${s.user}@127.0.0.1: set config.key or config.password, or create one of ${join(home, '.ssh', 'id_ed25519')}`);
  });

  test('a key given with ~ is found under HOME', async () => {
    const home = homeWith({ deploy_key: s.keys.ed25519 });
    const r = await withHome(home, `
steps:
  - { name: tilde, type: ssh, command: echo ok, config: { host: 127.0.0.1, port: "${s.port}", user: ${s.user}, key: ~/.ssh/deploy_key, strictHostKey: false } }
`);
    expect(await r.log('tilde')).toBe('ok\n');
  });

  test('refused logins, unreachable servers and bad config are step errors naming the server', async () => {
    const closed = await freePort();
    const r = await run(`
type: graph
env:
  - BAD_PORT: ssh
steps:
  - { name: badkey, type: ssh, command: echo, config: { host: 127.0.0.1, port: "${s.port}", user: ${s.user}, key: ${s.keys.stranger}, strictHostKey: false } }
  - { name: nokey, type: ssh, command: echo, config: { host: 127.0.0.1, port: "${s.port}", user: ${s.user}, key: /nonexistent/key, strictHostKey: false } }
  - { name: dns, type: ssh, command: echo, config: { host: no-such-host.invalid, user: u, password: p, strictHostKey: false } }
  - { name: badport, type: ssh, command: echo, config: { host: 127.0.0.1, port: "\${BAD_PORT}", user: u, password: p } }
  - name: refused
    type: ssh
    command: echo
    config: { host: 127.0.0.1, port: "${closed}", user: u, password: p, strictHostKey: false }
    retryPolicy: { limit: 2, intervalSec: 0 }
`);
    expect(r.node('badkey').error).toBe(`ssh step: authentication failed for ${s.user}@127.0.0.1:${s.port} (tried key ${s.keys.stranger})`);
    expect(r.node('nokey').error).toBe('ssh step: cannot use config.key /nonexistent/key: no such file');
    expect(r.node('dns').error).toMatch(/^ssh step: cannot resolve the host name "no-such-host\.invalid" \(no-such-host\.invalid:22\)/);
    expect(r.node('badport').error).toBe('ssh step: config.port "ssh" is not a port number (1-65535)');
    expect(r.node('refused').error).toBe(`ssh step: cannot connect to 127.0.0.1:${closed}: connection refused`);
    expect(r.node('refused').retryCount).toBe(2);
  });

  test('a secret is masked in the step output and outputs', async () => {
    const r = await run(`
secrets:
  - name: TOKEN
    provider: env
    key: SVC_TEST_SSH_TOKEN
steps:
  - name: leak
    type: ssh
    config: { ${conn} }
    command: echo "token=\${TOKEN}"; echo "again \${TOKEN}" >&2
    output: LEAK
`, { env: { SVC_TEST_SSH_TOKEN: 'tok-very-secret' } });
    expect(await r.log('leak')).toBe('token=*******\n');
    expect(await r.log('leak', 'stderr')).toBe('again *******\n');
    expect(JSON.stringify(await r.outputs())).not.toContain('tok-very-secret');
  });

  test('examples/steps/ssh.yaml runs: DAG block, command list, script with shell, output to a local step', async () => {
    const r = await run(readFileSync('examples/steps/ssh.yaml', 'utf8'), {
      params: `SSH_HOST=127.0.0.1 SSH_PORT=${s.port} SSH_USER=${s.user} SSH_KEY=${s.keys.ed25519} KNOWN_HOSTS=${knownHosts(s.knownHostsLine)} RELEASE=v9.8.7`,
    });
    expect(r.status).toBe('succeeded');
    const host = execFileSync('hostname', { encoding: 'utf8' }).trim();
    expect(await r.log('report')).toBe(`facts=Linux\nrelease v9.8.7 on ${host} installed=V9.8.7\n`);
  });
});

describeSshd('ssh steps as a non-root user (password login, stop signals)', () => {
  let s: SshdServer;
  let user = '';
  beforeAll(async () => {
    s = await startSshd();
    user = s.password!.user;
  });
  afterAll(async () => {
    killLeftovers();
    await s?.stop();
  });

  test('password login (from a secret); a wrong password is an authentication failure; $$VAR reaches the remote shell', async () => {
    const r = await run(`
type: graph
secrets:
  - { name: PW, provider: env, key: SVC_TEST_SSH_PASSWORD }
steps:
  - { name: good, type: ssh, command: 'id -un; echo "$$HOME"', config: { host: 127.0.0.1, port: "${s.port}", user: ${user}, password: "\${PW}", strictHostKey: false } }
  - { name: wrong, type: ssh, command: id -un, config: { host: 127.0.0.1, port: "${s.port}", user: ${user}, password: nope, strictHostKey: false } }
`, { env: { SVC_TEST_SSH_PASSWORD: s.password!.password } });
    // $$HOME is sent as $HOME: the remote user's home, not the local one.
    expect(await r.log('good')).toBe(`${user}\n/home/${user}\n`);
    expect(r.node('wrong').error).toBe(`ssh step: authentication failed for ${user}@127.0.0.1:${s.port} (tried password)`);
  });

  test('the step timeout ends a long remote command promptly, the remote processes with it', async () => {
    const marker = `sleep ${uniqueSeconds()}`;
    const t = Date.now();
    const r = await run(`
steps:
  - name: long
    type: ssh
    config: { host: 127.0.0.1, port: "${s.port}", user: ${user}, key: ${s.keys.ed25519}, strictHostKey: false }
    command: sh -c '${marker}; echo never'
    timeoutSec: 1
`);
    expect(r.node('long').error).toContain('timed out after 1s');
    expect(Date.now() - t).toBeLessThan(5_000);
    expect(await gone(marker, 3_000)).toBe('');
  });

  test('a stop aborts the runner at once: signal sent, channel and connection closed', async () => {
    const marker = `sleep ${uniqueSeconds()}`;
    const abort = new AbortController();
    const req = {
      commands: [`echo started; ${marker}; echo never`],
      config: { host: '127.0.0.1', port: String(s.port), user, key: s.keys.ed25519, strictHostKey: false },
      step: { signalOnStop: 'SIGTERM' },
      workingDir: tmpdir(),
      env: {},
      secrets: [],
    } as unknown as ExecRequest;
    const out: string[] = [];
    const running = runSsh({ req, io: { out: (t) => out.push(t), err: () => undefined }, signal: abort.signal });
    const until = Date.now() + 5_000;
    while (!out.join('').includes('started') && Date.now() < until) await sleep(20);
    expect(remoteProcesses(marker)).not.toBe('');
    const t = Date.now();
    abort.abort(new Error('stopped'));
    const outcome = await running;
    expect(Date.now() - t).toBeLessThan(3_000);
    expect(outcome.exitCode).not.toBe(0);
    expect(await gone(marker, 3_000)).toBe('');
    expect(out.join('')).toBe('started\n');
  });
}, passwordSkipReason());

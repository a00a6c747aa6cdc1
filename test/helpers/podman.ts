/**
 * A real container engine for tests: Podman's Docker-compatible API service (Debian's podman, with the
 * runc runtime), started on a unix socket of its own. Its containers.conf sets what these machines need
 * (runc, cgroupfs, explicit ulimits, file events and logs, no network unless a test asks for one); its
 * storage is kept in a cache directory so the test image is built once: a busybox-static root file
 * system imported with `podman import`, no registry involved. Without podman, suites are skipped loudly,
 * and fail under CI=true.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { describeWith, stopProcess } from './needs.js';

/** The image the tests run: busybox and its applets, a /tmp, and users root and app (1000). */
export const TEST_IMAGE = 'localhost/svc-test-busybox:2';
/** What the image runs when nothing else is asked: prints a line and exits. */
export const IMAGE_CMD_OUTPUT = 'hello from the image';

const BUSYBOX = ['/bin/busybox', '/usr/bin/busybox'].find((p) => existsSync(p));

function which(cmd: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Why container tests cannot run here, or undefined. */
export function podmanSkipReason(): string | undefined {
  const missing = [['podman', which('podman')], ['runc', which('runc')], ['busybox-static', BUSYBOX]].filter(([, p]) => !p).map(([n]) => n);
  if (missing.length > 0) return `no ${missing.join(', ')}: install the Debian packages podman runc busybox-static`;
  if (process.getuid?.() !== 0) return 'the podman test engine runs as root (rootful storage and cgroups)';
  return undefined;
}

/** describe() for tests that need the container engine. */
export function describePodman(name: string, fn: () => void): void {
  describeWith('podman', podmanSkipReason(), name, fn);
}

/** Storage shared by every test run on this machine (the image is imported once); runtime state in /tmp. */
const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'svc-test-podman');
/** One runroot per storage: two storages must never share one. */
const RUNROOT = join(tmpdir(), `svc-test-podman-run-${createHash('sha256').update(CACHE).digest('hex').slice(0, 12)}`);

/** Whole files only: test files in other workers start their services from the same configs at the same time. */
function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

function writeConfigs(): { env: NodeJS.ProcessEnv } {
  mkdirSync(CACHE, { recursive: true });
  mkdirSync(RUNROOT, { recursive: true });
  const conf = join(CACHE, 'containers.conf');
  writeAtomic(conf, [
    '[containers]',
    'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]',
    'log_driver = "k8s-file"',
    'netns = "none"',
    '[engine]',
    'runtime = "runc"',
    'cgroup_manager = "cgroupfs"',
    'events_logger = "file"',
    '',
  ].join('\n'));
  const storage = join(CACHE, 'storage.conf');
  writeAtomic(storage, ['[storage]', 'driver = "vfs"', `runroot = "${RUNROOT}"`, `graphroot = "${join(CACHE, 'root')}"`, ''].join('\n'));
  return { env: { ...process.env, CONTAINERS_CONF: conf, CONTAINERS_STORAGE_CONF: storage } };
}

/** Builds the test image unless the storage has it, one test file at a time (the first run on a machine). */
async function ensureImage(env: NodeJS.ProcessEnv): Promise<void> {
  if (spawnSync('podman', ['image', 'exists', TEST_IMAGE], { env }).status === 0) return;
  const lock = join(CACHE, 'image.lock');
  const end = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > end) rmSync(lock, { recursive: true, force: true }); // a test run killed while it held it
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    if (spawnSync('podman', ['image', 'exists', TEST_IMAGE], { env }).status !== 0) importImage(env);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A root file system of busybox-static, imported as the test image. */
function importImage(env: NodeJS.ProcessEnv): void {
  const root = mkdtempSync(join(tmpdir(), 'svc-rootfs-'));
  try {
    for (const d of ['bin', 'tmp', 'etc', 'work', 'home/app']) mkdirSync(join(root, d), { recursive: true });
    chmodSync(root, 0o755); // mkdtemp made it 0700: no other user could reach /bin
    chmodSync(join(root, 'tmp'), 0o1777);
    copyFileSync(BUSYBOX!, join(root, 'bin', 'busybox'));
    chmodSync(join(root, 'bin', 'busybox'), 0o755);
    const applets = execFileSync(BUSYBOX!, ['--list'], { encoding: 'utf8' }).split('\n').filter((a) => a && a !== 'busybox');
    for (const a of applets) symlinkSync('busybox', join(root, 'bin', a));
    writeFileSync(join(root, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000:app:/home/app:/bin/sh\n');
    writeFileSync(join(root, 'etc', 'group'), 'root:x:0:\napp:x:1000:\n');
    const tar = spawnSync('tar', ['-C', root, '-cf', '-', '.'], { maxBuffer: 64 << 20 });
    const imp = spawnSync('podman', ['import', '--change', `CMD ["/bin/sh", "-c", "echo ${IMAGE_CMD_OUTPUT}"]`, '--change', 'ENV PATH=/bin', '-', TEST_IMAGE], { env, input: tar.stdout, encoding: 'utf8' });
    if (imp.status !== 0) throw new Error(`podman import failed: ${imp.stderr}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export interface Podman {
  /** DOCKER_HOST of the service. */
  dockerHost: string;
  socket: string;
  docker: Docker;
  /** Runs the podman command line on the same storage. */
  cli(args: string[]): string;
  /** Containers svc made (by its label), with their names and states. */
  svcContainers(): Promise<Docker.ContainerInfo[]>;
  stop(): Promise<void>;
}

export interface PodmanOptions {
  /** Registries (host:port on loopback) the engine reaches over plain HTTP: a test's fake registry. */
  insecureRegistries?: string[];
  /** Also listen on tcp://127.0.0.1:<port> (DOCKER_HOST in its tcp:// form). */
  tcpPort?: number;
}

export async function startPodman(o: PodmanOptions = {}): Promise<Podman> {
  const { env: base } = writeConfigs();
  await ensureImage(base);
  const dir = mkdtempSync(join(tmpdir(), 'svc-podman-'));
  const env = { ...base };
  if (o.insecureRegistries?.length) {
    env.CONTAINERS_REGISTRIES_CONF = join(dir, 'registries.conf');
    writeFileSync(env.CONTAINERS_REGISTRIES_CONF, o.insecureRegistries.map((r) => `[[registry]]\nlocation = "${r}"\ninsecure = true\n`).join('\n'));
  }
  const socket = join(dir, 'podman.sock');
  const listen = o.tcpPort ? `tcp://127.0.0.1:${o.tcpPort}` : `unix://${socket}`;
  const proc: ChildProcess = spawn('podman', ['system', 'service', '--time=0', listen], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (b: Buffer) => { stderr = (stderr + b.toString()).slice(-4000); });
  const docker = o.tcpPort ? new Docker({ host: '127.0.0.1', port: o.tcpPort, protocol: 'http' }) : new Docker({ socketPath: socket });
  const end = Date.now() + 30_000;
  for (;;) {
    if ((o.tcpPort || existsSync(socket)) && await docker.ping().then(() => true, () => false)) break;
    if (proc.exitCode !== null || Date.now() > end) {
      await stopProcess(proc);
      throw new Error(`podman system service did not answer on ${socket}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    dockerHost: listen, socket, docker,
    cli: (args) => execFileSync('podman', args, { env, encoding: 'utf8' }),
    svcContainers: () => docker.listContainers({ all: true, filters: { label: ['svc.io/managed-by=svc-embedded'] } }),
    stop: async () => {
      await stopProcess(proc, 'SIGTERM', 5000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A real container engine for tests: Podman's Docker-compatible API service (Debian's podman, with the
 * runc runtime), started on a unix socket of its own. Its containers.conf sets what these machines need
 * (runc, cgroupfs, explicit ulimits, file events and logs, no network unless a test asks for one); its
 * storage is its own, in a temp directory removed by stop() with every container in it, and holds the
 * test image: a busybox-static root file system imported with `podman import` (under a second), no
 * registry involved. Without podman, suites are skipped loudly, and fail under CI=true.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** The engine's configuration and storage, all in `dir`: nothing is shared with another test file's engine. */
function writeConfigs(dir: string, insecureRegistries: string[]): NodeJS.ProcessEnv {
  const conf = join(dir, 'containers.conf');
  writeFileSync(conf, [
    '[containers]',
    'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]',
    'log_driver = "k8s-file"',
    'netns = "none"',
    '[engine]',
    'runtime = "runc"',
    'cgroup_manager = "cgroupfs"',
    'events_logger = "file"',
    // The monitor of each exec waits this long for its exit code to be read (default 300 s): hundreds of
    // them would linger after the tests.
    'exit_command_delay = 10',
    '',
  ].join('\n'));
  const storage = join(dir, 'storage.conf');
  writeFileSync(storage, ['[storage]', 'driver = "vfs"', `runroot = "${join(dir, 'run')}"`, `graphroot = "${join(dir, 'root')}"`, ''].join('\n'));
  const registries = join(dir, 'registries.conf');
  writeFileSync(registries, insecureRegistries.map((r) => `[[registry]]\nlocation = "${r}"\ninsecure = true\n`).join('\n'));
  return { ...process.env, CONTAINERS_CONF: conf, CONTAINERS_STORAGE_CONF: storage, CONTAINERS_REGISTRIES_CONF: registries };
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
  const dir = mkdtempSync(join(tmpdir(), 'svc-podman-'));
  const env = writeConfigs(dir, o.insecureRegistries ?? []);
  importImage(env);
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
    // Every container of this engine goes with it (a run's container is removed after the run has ended,
    // which a test need not wait for), then its storage.
    stop: async () => {
      spawnSync('podman', ['rm', '--all', '--force', '--time', '0'], { env });
      await stopProcess(proc, 'SIGTERM', 5000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

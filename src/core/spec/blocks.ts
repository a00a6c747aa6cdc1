/** Connection blocks (SPEC 2.2, 2.5): container, ssh, llm, redis, s3, smtp, otel, mail, with their defaults. */
import type {
  ContainerConfig, LlmConfig, MailConfig, OtelConfig, RedisConfig, S3Config, SmtpConfig, SshConfig,
} from './types.js';
import type { Problems } from './errors.js';
import { at } from './errors.js';
import { parseShell } from './params.js';
import { checkContainerValues } from './container-checks.js';
import type { Obj } from './values.js';
import { bool, compact, int, isObj, num, scalarList, scalarText, str, strList, strMap } from './values.js';

const EXEC_MODE_FIELDS = new Set(['exec', 'user', 'workingDir', 'env', 'shell']);

function pick<T extends string>(v: unknown, allowed: readonly T[]): T | undefined {
  return allowed.includes(v as T) ? (v as T) : undefined;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], fallback: T): T {
  return pick(v, allowed) ?? fallback;
}

function containerEnv(v: unknown): string[] {
  if (isObj(v)) return Object.entries(strMap(v)).map(([k, val]) => `${k}=${val}`);
  return strList(v);
}

/** A container string (exec mode) or object; exec and image modes are exclusive (SPEC 2.5). */
export function parseContainer(raw: unknown, path: string, problems: Problems): ContainerConfig | undefined {
  const o: Obj | undefined = typeof raw === 'string' ? { exec: raw } : isObj(raw) ? raw : undefined;
  if (!o) return undefined;
  if (o.exec !== undefined) {
    for (const k of Object.keys(o)) {
      if (!EXEC_MODE_FIELDS.has(k)) problems.add(at(path, k), 'not allowed with exec (exec mode allows only user, workingDir, env and shell)');
    }
  } else if (o.image === undefined) {
    problems.add(at(path, 'image'), 'is required (or exec, the name of a running container)');
  }
  const c = compact<ContainerConfig>({
    exec: str(o.exec), name: str(o.name), image: str(o.image),
    pullPolicy: oneOf(o.pullPolicy, ['always', 'missing', 'never'], 'missing'),
    env: containerEnv(o.env), volumes: strList(o.volumes), workingDir: str(o.workingDir), platform: str(o.platform),
    user: str(o.user), ports: scalarList(o.ports), network: str(o.network),
    startup: oneOf(o.startup, ['keepalive', 'entrypoint', 'command'], 'keepalive'),
    command: strList(o.command), waitFor: oneOf(o.waitFor, ['running', 'healthy'], 'running'),
    logPattern: str(o.logPattern), restartPolicy: oneOf(o.restartPolicy, ['no', 'always', 'unless-stopped'], 'no'),
    keepContainer: bool(o.keepContainer, false), shell: parseShell(o.shell) ?? [],
  });
  checkContainerValues(c, path, problems);
  return c;
}

export function parseSsh(raw: unknown): SshConfig | undefined {
  if (!isObj(raw)) return undefined;
  return compact<SshConfig>({
    user: str(raw.user), host: str(raw.host), port: scalarText(raw.port) ?? '22', key: str(raw.key),
    password: str(raw.password), strictHostKey: bool(raw.strictHostKey, true), knownHostFile: str(raw.knownHostFile),
    shell: parseShell(raw.shell),
  });
}

export function parseLlm(raw: unknown): LlmConfig | undefined {
  if (!isObj(raw)) return undefined;
  const t = isObj(raw.thinking) ? raw.thinking : undefined;
  return compact<LlmConfig>({
    provider: str(raw.provider), model: str(raw.model), system: str(raw.system), temperature: num(raw.temperature),
    maxTokens: num(raw.maxTokens), topP: num(raw.topP), baseURL: str(raw.baseURL), apiKey: str(raw.apiKey),
    stream: bool(raw.stream, true), tools: strList(raw.tools), maxToolIterations: int(raw.maxToolIterations, 10),
    thinking: t && compact({ enabled: bool(t.enabled, true), effort: pick(t.effort, ['low', 'medium', 'high', 'xhigh'] as const) }),
  });
}

/** Redis connection; sentinel and cluster modes need their addresses. */
export function parseRedis(raw: unknown): RedisConfig | undefined {
  if (!isObj(raw)) return undefined;
  const r = compact<RedisConfig>({
    url: str(raw.url), host: str(raw.host), port: int(raw.port, 6379), password: str(raw.password),
    username: str(raw.username), db: num(raw.db), tls: typeof raw.tls === 'boolean' ? raw.tls : undefined,
    mode: oneOf(raw.mode, ['standalone', 'sentinel', 'cluster'], 'standalone'), sentinelMaster: str(raw.sentinelMaster),
    sentinelAddrs: strList(raw.sentinelAddrs), clusterAddrs: strList(raw.clusterAddrs),
  });
  // What a mode needs is checked on each redis step's config with this block applied (step-configs/redis.ts).
  return r;
}

export function parseS3(raw: unknown): S3Config | undefined {
  if (!isObj(raw)) return undefined;
  return compact<S3Config>({
    region: str(raw.region), accessKeyId: str(raw.accessKeyId), secretAccessKey: str(raw.secretAccessKey),
    bucket: str(raw.bucket), endpoint: str(raw.endpoint),
    forcePathStyle: typeof raw.forcePathStyle === 'boolean' ? raw.forcePathStyle : undefined,
  });
}

export function parseSmtp(raw: unknown): SmtpConfig | undefined {
  if (!isObj(raw)) return undefined;
  return compact<SmtpConfig>({
    host: str(raw.host), port: scalarText(raw.port), username: str(raw.username), password: str(raw.password),
  });
}

const DURATION_UNITS_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };

/** A Go-style duration ("30s", "1m30s", "500ms") in milliseconds, or undefined when malformed. */
export function parseDurationMs(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(m[1]) * (DURATION_UNITS_MS[m[2] as string] ?? 0);
  }
  return Math.round(total);
}

export function parseOtel(raw: unknown): OtelConfig | undefined {
  if (!isObj(raw)) return undefined;
  return compact<OtelConfig>({
    enabled: bool(raw.enabled, false), endpoint: str(raw.endpoint), headers: strMap(raw.headers),
    insecure: bool(raw.insecure, false), timeoutMs: typeof raw.timeout === 'string' ? parseDurationMs(raw.timeout) : undefined,
    resource: strMap(raw.resource),
  });
}

export function parseMail(raw: unknown): MailConfig | undefined {
  if (!isObj(raw)) return undefined;
  return compact<MailConfig>({
    from: str(raw.from), to: strList(raw.to), prefix: str(raw.prefix), attachLogs: bool(raw.attachLogs, false),
  });
}

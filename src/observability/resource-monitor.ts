/**
 * Resource monitoring (SPEC 4.1, 8): CPU percent, memory percent, disk percent of the data directory
 * and the 1-minute load average, sampled every `intervalMs` into a fixed-size ring buffer covering
 * `retentionMs` (typed arrays: about 24 bytes a sample, ~400 KB at the 5 s / 24 h defaults).
 */
import { statfs } from 'node:fs/promises';
import { cpus, freemem, loadavg, totalmem } from 'node:os';

export const SERIES = ['cpu', 'memory', 'disk', 'load'] as const;
export type Series = (typeof SERIES)[number];

export interface Point { timestamp: string; value: number }
export type ResourceHistory = Record<Series, Point[]>;

interface CpuTimes { idle: number; total: number }

function cpuTimes(): CpuTimes {
  let idle = 0;
  let total = 0;
  for (const c of cpus()) {
    idle += c.times.idle;
    total += c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq;
  }
  return { idle, total };
}

const round = (v: number): number => Math.round(v * 100) / 100;

export class ResourceMonitor {
  private readonly capacity: number;
  private readonly times: Float64Array;
  private readonly values: Record<Series, Float32Array>;
  private next = 0;
  private count = 0;
  private timer?: NodeJS.Timeout;
  private prevCpu = cpuTimes();

  constructor(private readonly dir: string, readonly intervalMs: number, readonly retentionMs: number, private readonly now: () => number = Date.now) {
    this.capacity = Math.max(1, Math.ceil(retentionMs / intervalMs));
    this.times = new Float64Array(this.capacity);
    this.values = { cpu: new Float32Array(this.capacity), memory: new Float32Array(this.capacity), disk: new Float32Array(this.capacity), load: new Float32Array(this.capacity) };
  }

  start(): void {
    if (this.timer) return;
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Takes one sample now (also called by the timer). */
  async sample(): Promise<void> {
    const cpu = this.cpuPercent();
    const memory = (1 - freemem() / totalmem()) * 100;
    const disk = await this.diskPercent();
    const i = this.next;
    this.times[i] = this.now();
    this.values.cpu[i] = cpu;
    this.values.memory[i] = memory;
    this.values.disk[i] = disk;
    this.values.load[i] = loadavg()[0] ?? 0;
    this.next = (i + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
  }

  /** Samples of the last `durationMs`, oldest first. */
  history(durationMs: number): ResourceHistory {
    const since = this.now() - durationMs;
    const out: ResourceHistory = { cpu: [], memory: [], disk: [], load: [] };
    for (let k = 0; k < this.count; k++) {
      const i = (this.next - this.count + k + this.capacity) % this.capacity;
      const t = this.times[i] as number;
      if (t < since) continue;
      const timestamp = new Date(t).toISOString();
      for (const s of SERIES) out[s].push({ timestamp, value: round(this.values[s][i] as number) });
    }
    return out;
  }

  /** Busy share of all CPUs since the previous sample (the first sample: since boot). */
  private cpuPercent(): number {
    const cur = cpuTimes();
    const total = cur.total - this.prevCpu.total;
    const idle = cur.idle - this.prevCpu.idle;
    this.prevCpu = cur;
    return total > 0 ? Math.min(100, Math.max(0, (1 - idle / total) * 100)) : 0;
  }

  /** Used share of the file system holding the data directory, as `df` computes it. */
  private async diskPercent(): Promise<number> {
    try {
      const s = await statfs(this.dir);
      const used = s.blocks - s.bfree;
      const avail = used + s.bavail;
      return avail > 0 ? (used / avail) * 100 : 0;
    } catch {
      return 0;
    }
  }
}

/**
 * What this launcher started, for a restarted engine: one appended file per run attempt beside the
 * process launcher's records (`containers` in the same directory), a line per event, each one write(2):
 *   <key> {"container":"<name>","cmd":I}    command I of the execution starts, in that container (before it runs)
 *   <key> {"exec":"<id>"}                   the exec that runs it (once the engine made it)
 *   <key> <code>                            its exit code, once known
 * The latest start counts; a code after it is final.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface ContainerRecord {
  container?: string;
  cmd?: number;
  exec?: string;
  exitCode?: number;
}

export class ContainerRecords {
  constructor(private readonly file: string, private readonly key: string) {}

  /** The records file of an attempt, beside the process launcher's `records`. */
  static at(recordFile: string, key: string): ContainerRecords {
    return new ContainerRecords(join(dirname(recordFile), 'containers'), key);
  }

  begun(): boolean {
    return this.read() !== undefined;
  }

  started(container: string, cmd: number): void {
    this.append(JSON.stringify({ container, cmd }));
  }

  execCreated(exec: string): void {
    this.append(JSON.stringify({ exec }));
  }

  ended(code: number): void {
    this.append(String(code));
  }

  read(): ContainerRecord | undefined {
    if (!existsSync(this.file)) return undefined;
    let rec: ContainerRecord | undefined;
    const prefix = `${this.key} `;
    const lines = readFileSync(this.file, 'utf8').split('\n');
    lines.pop(); // an unfinished last line is not a record yet
    for (const line of lines) {
      if (!line.startsWith(prefix)) continue;
      const body = line.slice(prefix.length);
      if (/^\d+$/.test(body)) {
        if (rec) rec.exitCode ??= Number(body);
        continue;
      }
      const p = parse(body);
      if (p.container !== undefined) rec = { container: p.container, ...(p.cmd !== undefined ? { cmd: p.cmd } : {}) };
      else if (rec && p.exec !== undefined) rec.exec = p.exec;
    }
    return rec;
  }

  private append(body: string): void {
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${this.key} ${body}\n`);
  }
}

function parse(body: string): ContainerRecord {
  try {
    const p = JSON.parse(body) as Record<string, unknown>;
    return {
      ...(typeof p.container === 'string' ? { container: p.container } : {}),
      ...(typeof p.cmd === 'number' ? { cmd: p.cmd } : {}),
      ...(typeof p.exec === 'string' ? { exec: p.exec } : {}),
    };
  } catch {
    return {};
  }
}

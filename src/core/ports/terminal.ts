/**
 * A shell on a pseudo-terminal of the server host: what the web terminal (docs/api.md "Web terminal")
 * attaches a WebSocket to. The adapter decides how the terminal is made (ADR 0022).
 */

export interface TerminalSize {
  cols: number;
  rows: number;
}

export interface TerminalSpawnOptions {
  /** The shell program, started interactive. */
  shell: string;
  cwd: string;
  /** The whole environment of the shell (the caller filters the service's own). */
  env: Record<string, string>;
  size: TerminalSize;
}

export interface TerminalProcess {
  /** The shell's process id (the leader of its session: every process it starts is in that session). */
  readonly pid: number;
  /** Keystrokes, as the terminal emulator sends them. */
  write(data: Buffer): void;
  resize(size: TerminalSize): void;
  /** Output of the terminal, as it comes. */
  onData(fn: (chunk: Buffer) => void): void;
  /** Called once, when the terminal is gone (the shell exited or was killed): at once when it already is. */
  onExit(fn: (code: number | null) => void): void;
  /** Stops reading the terminal's output (the reader is behind): the shell blocks on a full terminal. */
  pause(): void;
  resume(): void;
  /** Ends the shell and every process of its session; the exit callback follows. */
  kill(): void;
}

export interface TerminalSpawner {
  spawn(opts: TerminalSpawnOptions): Promise<TerminalProcess>;
}

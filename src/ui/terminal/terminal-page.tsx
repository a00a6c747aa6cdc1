/**
 * The web terminal (`/terminal`, admin only, when the server has it on): a shell on the server host in
 * xterm.js, fitted to the page and resized with it. Keyboard: the terminal takes every key, Tab included;
 * Shift+Escape leaves it for the buttons above. Colours follow the page's theme.
 */
import { FitAddon } from '@xterm/addon-fit';
import { Terminal, type ITheme } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import './terminal.css';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { ApiError } from '../api/client';
import { ErrorBox, Loading } from '../components/query-state';
import { terminalStatus } from '../components/terminal-link';
import { connect, type Connection } from './connection';

type State = { kind: 'connecting' } | { kind: 'open' } | { kind: 'closed'; reason: string };

function themeOfPage(): ITheme {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return { background: v('--surface'), foreground: v('--text'), cursor: v('--text'), cursorAccent: v('--surface'), selectionBackground: v('--run-bg'), selectionForeground: v('--run-fg') };
}

/** xterm.js in `host`, connected to a new session for as long as the component lives. */
function useTerminal(host: RefObject<HTMLDivElement | null>, leave: () => void): State {
  const [state, setState] = useState<State>({ kind: 'connecting' });
  useEffect(() => {
    const el = host.current;
    if (!el) return undefined;
    const term = new Terminal({ theme: themeOfPage(), fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 14, cursorBlink: true, scrollback: 5000 });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    fit.fit();
    term.attachCustomKeyEventHandler((e) => {
      if (e.type === 'keydown' && e.key === 'Escape' && e.shiftKey) { leave(); return false; }
      return true;
    });
    let conn: Connection | undefined;
    let gone = false;
    connect({ write: (d) => term.write(d), closed: (reason) => { if (!gone) setState({ kind: 'closed', reason }); } }, term.cols, term.rows)
      .then((c) => {
        conn = c;
        if (gone) return c.close();
        setState({ kind: 'open' });
        term.onData((keys) => c.send(keys));
        term.onResize(({ cols, rows }) => c.resize(cols, rows));
        term.focus();
      })
      .catch((e: unknown) => { if (!gone) setState({ kind: 'closed', reason: e instanceof Error ? e.message : String(e) }); });
    const refit = new ResizeObserver(() => fit.fit());
    refit.observe(el);
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    const retheme = () => { term.options.theme = themeOfPage(); };
    scheme.addEventListener('change', retheme);
    return () => {
      gone = true;
      scheme.removeEventListener('change', retheme);
      refit.disconnect();
      conn?.close();
      term.dispose();
    };
  }, [host, leave]);
  return state;
}

/** One session; the page gives it a new key to start another. */
function Session({ restart }: { restart: () => void }) {
  const host = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const leave = useCallback(() => button.current?.focus(), []);
  const state = useTerminal(host, leave);
  return (
    <>
      <div className="actions">
        <span role="status" className="muted">
          {state.kind === 'connecting' ? 'Connecting…' : state.kind === 'open' ? 'Connected.' : state.reason}
        </span>
        <button type="button" ref={button} onClick={restart}>
          {state.kind === 'closed' ? 'Reconnect' : 'Restart session'}
        </button>
      </div>
      <div className="terminal-frame" ref={host} aria-label="Terminal" role="group" />
    </>
  );
}

export default function TerminalPage() {
  const status = useQuery(terminalStatus);
  const [generation, setGeneration] = useState(0);
  const forbidden = status.error instanceof ApiError && status.error.status === 403;
  return (
    <>
      <header className="page-header">
        <h1>Terminal</h1>
        <p className="muted">
          A shell on the server host, as the server's user, in the DAGs directory. Everything you type runs
          there. Shift+Esc leaves the terminal.
        </p>
      </header>
      {status.isPending ? <Loading what="the terminal" /> : null}
      {forbidden ? <p className="warning-box" role="alert">The terminal needs the admin role.</p> : null}
      {status.error && !forbidden ? <ErrorBox error={status.error} what="the terminal" /> : null}
      {status.data && !status.data.enabled ? <p className="warning-box" role="alert">The terminal is not available: {status.data.reason}</p> : null}
      {status.data?.enabled ? <Session key={generation} restart={() => setGeneration((g) => g + 1)} /> : null}
    </>
  );
}

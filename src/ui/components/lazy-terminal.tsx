/** The terminal page from its own chunk (xterm.js and its stylesheet): loaded when first opened. */
import { lazy, Suspense } from 'react';
import { Loading } from './query-state';

const TerminalPage = lazy(() => import('../terminal/terminal-page'));

export const LazyTerminalPage = () => <Suspense fallback={<Loading what="the terminal" />}><TerminalPage /></Suspense>;

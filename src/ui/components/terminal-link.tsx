/**
 * Whether this session may open the web terminal (GET /terminal: admin only, and only when the server has
 * it on and authentication is on), and the sidebar's link to it, shown only then. In the main bundle: the
 * terminal itself (xterm.js) is the lazy chunk of `terminal/`.
 */
import { useQuery } from '@tanstack/react-query';
import { NavLink } from 'react-router';
import { api, must } from '../api/client';

export const terminalStatus = {
  queryKey: ['terminal'] as const,
  queryFn: () => must(api.GET('/terminal')),
  // The setting changes only with a restart; a 403 (not an admin) will not change by asking again.
  staleTime: 5 * 60_000,
  retry: false,
};

export function TerminalNavLink() {
  const { data } = useQuery(terminalStatus);
  return data?.enabled ? <li><NavLink to="/terminal">Terminal</NavLink></li> : null;
}

/** The frame of every page: a skip link, the sidebar's navigation, the page in <main>. */
import { useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet } from 'react-router';
import { session, useCan, useSession } from '../auth/session';
import { TerminalNavLink } from './terminal-link';

export function Layout() {
  const { user } = useSession();
  const qc = useQueryClient();
  const admin = useCan('admin');
  const logout = () => {
    session.loggedOut(false);
    void qc.resetQueries();
  };
  return (
    <div className="app">
      <a className="skip-link" href="#main">Skip to content</a>
      <nav className="sidebar" aria-label="Main">
        <NavLink to="/" className="brand" aria-label="svc home">svc</NavLink>
        <ul>
          <li><NavLink to="/" end>Dashboard</NavLink></li>
          <li><NavLink to="/dags">DAGs</NavLink></li>
          <li><NavLink to="/dag-runs" end>Runs</NavLink></li>
          <li><NavLink to="/queues">Queues</NavLink></li>
          <li><NavLink to="/workers">Workers</NavLink></li>
        </ul>
        {admin ? (
          <div className="sidebar-group">
            <h2 id="admin-nav" className="sidebar-heading">Admin</h2>
            <ul aria-labelledby="admin-nav">
              <li><NavLink to="/admin/users">Users</NavLink></li>
              <li><NavLink to="/admin/api-keys">API keys</NavLink></li>
              <li><NavLink to="/admin/webhooks">Webhooks</NavLink></li>
              <TerminalNavLink />
            </ul>
          </div>
        ) : null}
        {user ? (
          <div className="sidebar-user">
            <span className="muted small">{user.username} · {user.role}</span>
            <button type="button" className="ghost" onClick={logout}>Log out</button>
          </div>
        ) : null}
      </nav>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}

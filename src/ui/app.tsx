/**
 * The routes of the UI; the login page replaces them all while the server asks for credentials, and
 * /login (where OIDC logins come back) is outside the frame.
 */
import { Link, Route, Routes, useLocation } from 'react-router';
import { LoginPage } from './auth/login-page';
import { LoginRoute } from './auth/oidc-return';
import { useSession } from './auth/session';
import { Layout } from './components/layout';
import { LazyApiKeysPage, LazyUsersPage, LazyWebhooksPage } from './components/lazy-admin';
import { LazyTerminalPage } from './components/lazy-terminal';
import { DagPage } from './pages/dag-page';
import { DashboardPage } from './pages/dashboard-page';
import { DagsPage } from './pages/dags-page';
import { NewDagPage } from './pages/new-dag-page';
import { QueuesPage } from './pages/queues-page';
import { RunPage } from './pages/run-page';
import { RunsPage } from './pages/runs-page';
import { WorkersPage } from './pages/workers-page';

export function App() {
  const { needLogin } = useSession();
  const { pathname } = useLocation();
  // /login first: the OIDC callback's answer is in its fragment, whatever the session's state.
  if (pathname === '/login') return <LoginRoute />;
  if (needLogin) return <LoginPage />;
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<DashboardPage />} />
        <Route path="dags" element={<DagsPage />} />
        <Route path="dags/:fileName" element={<DagPage />} />
        <Route path="new-dag" element={<NewDagPage />} />
        <Route path="dag-runs" element={<RunsPage />} />
        <Route path="dag-runs/:name/:dagRunId" element={<RunPage />} />
        <Route path="queues" element={<QueuesPage />} />
        <Route path="workers" element={<WorkersPage />} />
        <Route path="admin/users" element={<LazyUsersPage />} />
        <Route path="admin/api-keys" element={<LazyApiKeysPage />} />
        <Route path="admin/webhooks" element={<LazyWebhooksPage />} />
        <Route path="terminal" element={<LazyTerminalPage />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>There is no page here. <Link to="/dags">Go to the DAGs.</Link></p>
    </>
  );
}

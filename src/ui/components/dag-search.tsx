/** Search across DAG files (GET /dags/search): each DAG whose text holds the words, with the lines that do. */
import { Link } from 'react-router';
import { useDagSearch } from '../api/queries';
import { ErrorBox, Loading } from './query-state';

interface Match { line: string; lineNumber: number; startLine: number }

export function DagSearch({ q }: { q: string }) {
  const search = useDagSearch(q);
  if (search.isPending) return <Loading what="the search" />;
  if (search.isError) return <ErrorBox error={search.error} what="the search" />;
  const { results } = search.data;
  return (
    <section aria-label="Search results">
      <p className="muted small" aria-live="polite">{results.length === 1 ? '1 DAG holds' : `${results.length} DAGs hold`} “{q}”</p>
      <ul className="search-results">
        {results.map((r) => (
          <li key={r.name} className="panel" data-result={r.name}>
            <Link to={`/dags/${encodeURIComponent(r.name)}?tab=spec`}>{r.dag.name || r.name}</Link>
            {r.matches.map((m) => <Snippet key={m.lineNumber} match={m} />)}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A match and the lines around it (the server's snippet), numbered; the matching line marked. */
function Snippet({ match }: { match: Match }) {
  const lines = match.line.split('\n');
  return (
    <pre className="log one-line" aria-label={`line ${match.lineNumber}`}>
      {lines.map((text, i) => {
        const n = match.startLine + i;
        const content = `${String(n).padStart(4)}  ${text}\n`;
        return n === match.lineNumber ? <mark key={n}>{content}</mark> : <span key={n}>{content}</span>;
      })}
    </pre>
  );
}

/** The DAG list's search box: every word must match the name, file name, description or a tag. */
import type { DagListItem } from '../api/types';

export function matchesQuery(item: DagListItem, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const fields = [item.fileName, item.dag.name, item.dag.description, ...item.dag.tags].map((f) => f.toLowerCase());
  return words.every((w) => fields.some((f) => f.includes(w)));
}

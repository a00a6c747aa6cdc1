/** The DAG list's tag expression (SPEC 2.9: comma-separated terms, all must hold), filtered by the server. */

/** The expression with `tag` as one more term (a tag clicked in the list); unchanged when it has it. */
export function withTag(expression: string, tag: string): string {
  const terms = expression.split(',').map((t) => t.trim()).filter(Boolean);
  return (terms.includes(tag) ? terms : [...terms, tag]).join(',');
}

/** Waiting for something that happens in another process or later in this one. */

/**
 * Polls until fn returns a truthy value (bounded). A throw counts as "not yet"; on timeout the last
 * error is part of the message, so an assertion inside fn still explains itself.
 */
export async function eventually<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const v = await fn().catch((e: unknown) => { last = e; return undefined; });
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `; last error: ${last instanceof Error ? last.message : String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

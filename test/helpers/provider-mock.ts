/**
 * Hosted LLM providers played by nock (they cannot run here): replies that record each request the
 * provider's SDK sends (headers, JSON body, path) in `seen`, and SSE bodies as the providers stream them.
 */
export interface Seen { headers: Record<string, string>; body: Record<string, unknown>; path: string }

/** Every request recorded so far: tests empty it (`seen.length = 0`) before each case. */
export const seen: Seen[] = [];

/** A nock reply (nock 15 gives it the fetch Request) that records the request, then answers. */
export function record(status: number, body: string, headers: Record<string, string> = {}) {
  return async (req: Request): Promise<[number, string, Record<string, string>]> => {
    const text = await req.text();
    seen.push({ headers: Object.fromEntries(req.headers), body: JSON.parse(text) as Record<string, unknown>, path: new URL(req.url).pathname });
    return [status, body, headers];
  };
}

export const sse = (events: unknown[], done = false): string => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
/** Anthropic names each event on an `event:` line too. */
export const namedSse = (events: Array<Record<string, unknown>>): string => events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');
export const SSE = { 'content-type': 'text/event-stream' };
export const JSON_TYPE = { 'content-type': 'application/json' };

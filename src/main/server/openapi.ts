/**
 * The OpenAPI document of REST API v2: `api/openapi.yaml` at the package root (the same relative path
 * from src/ and from dist/), read and parsed once on first use. Its YAML anchors and merge keys are
 * resolved here; the `x-shared` block that holds them is not part of the served document.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const OPENAPI_FILE = fileURLToPath(new URL('../../../api/openapi.yaml', import.meta.url));

export function parseOpenApi(text: string, version: string): Record<string, unknown> {
  const doc = parse(text, { merge: true, maxAliasCount: 10_000 }) as Record<string, unknown> & { info: Record<string, unknown> };
  delete doc['x-shared'];
  doc.info = { ...doc.info, version };
  // Aliases share objects: a JSON round trip gives every operation its own copy.
  return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
}

/** A loader of the document, caching the first successful read. */
export function openApiLoader(version: string, file = OPENAPI_FILE): () => Promise<Record<string, unknown>> {
  let cached: Promise<Record<string, unknown>> | undefined;
  return () => {
    cached ??= readFile(file, 'utf8').then((t) => parseOpenApi(t, version));
    cached.catch(() => { cached = undefined; });
    return cached;
  };
}

#!/usr/bin/env node
// JSON Schemas of Kubernetes kinds for kubeconform, made from a live API server's OpenAPI v2 document and
// this repository's CRDs, in kubeconform's file layout ({kind}{-group-version}.json, lower case). Strict:
// an object with declared properties allows no others (kubeconform -strict reads the schemas as given),
// and every field may be null, as in the API server's own decoding.
//
//   node hack/kube-schemas.mjs <out dir>      (KUBECONFIG: the cluster to read; kubectl on PATH)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** kubeconform's {{.ResourceKind}}{{.KindSuffix}}: kind, the first label of the group (if any), the version. */
export function schemaFileName(kind, apiVersion) {
  const [groupOrVersion, version] = apiVersion.split('/');
  const suffix = version ? `-${groupOrVersion.split('.')[0]}-${version}` : `-${groupOrVersion}`;
  return `${kind}${suffix}`.toLowerCase() + '.json';
}

const SPECIAL_FORMATS = {
  'int-or-string': { oneOf: [{ type: 'string' }, { type: 'integer' }] },
  quantity: { oneOf: [{ type: 'string' }, { type: 'number' }] },
};

/** A copy of an OpenAPI schema as a strict, nullable JSON Schema with refs into #/definitions. */
export function strict(schema) {
  if (Array.isArray(schema)) return schema.map(strict);
  if (typeof schema !== 'object' || schema === null) return schema;
  if (SPECIAL_FORMATS[schema.format] || schema['x-kubernetes-int-or-string']) {
    return { ...(SPECIAL_FORMATS[schema.format] ?? SPECIAL_FORMATS['int-or-string']), ...(schema.description ? { description: schema.description } : {}) };
  }
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref') out.$ref = v;
    else if (k === 'properties') out.properties = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, strict(s)]));
    else if (k.startsWith('x-kubernetes-') || k === 'format') continue;
    else out[k] = typeof v === 'object' ? strict(v) : v;
  }
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  const open = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (out.properties && out.additionalProperties === undefined && !open) out.additionalProperties = false;
  return out;
}

/** One schema per kind of the OpenAPI v2 document, each a reference into _definitions.json beside it. */
export function kindSchemas(openapi) {
  const definitions = Object.fromEntries(Object.entries(openapi.definitions).map(([name, s]) => [name, strict(s)]));
  const out = { '_definitions.json': { definitions } };
  for (const [name, def] of Object.entries(openapi.definitions)) {
    for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) {
      const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
      out[schemaFileName(gvk.kind, apiVersion)] ??= { $ref: `_definitions.json#/definitions/${name}` };
    }
  }
  return out;
}

/** The schema of each version of a CRD, with apiVersion, kind and metadata as the API server adds them. */
export function crdSchemas(crd) {
  const out = {};
  for (const v of crd.spec.versions) {
    const s = strict(v.schema.openAPIV3Schema);
    s.properties = { apiVersion: { type: ['string', 'null'] }, kind: { type: ['string', 'null'] }, metadata: { type: ['object', 'null'] }, ...s.properties };
    out[schemaFileName(crd.spec.names.kind, `${crd.spec.group}/${v.name}`)] = s;
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node hack/kube-schemas.mjs <out dir>');
    process.exit(2);
  }
  const openapi = JSON.parse(execFileSync('kubectl', ['get', '--raw', '/openapi/v2'], { encoding: 'utf8', maxBuffer: 256 << 20 }));
  const crds = readdirSync(join(ROOT, 'crds')).filter((f) => f.endsWith('.yaml')).map((f) => parse(readFileSync(join(ROOT, 'crds', f), 'utf8')));
  const all = { ...kindSchemas(openapi), ...Object.assign({}, ...crds.map(crdSchemas)) };
  mkdirSync(dir, { recursive: true });
  for (const [file, schema] of Object.entries(all)) writeFileSync(join(dir, file), JSON.stringify(schema));
  console.log(`${Object.keys(all).length} schemas in ${dir}`);
}

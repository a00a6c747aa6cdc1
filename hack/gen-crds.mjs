#!/usr/bin/env node
// Writes crds/svc.io_dags.yaml and crds/svc.io_dagruns.yaml from src/adapters/kube/crds.ts (generated
// from the DAG JSON Schema), and the same files into the Helm chart (charts/svc/crds/) and kustomize's
// config/crd/. Run after changing the schema: `npm run build && node hack/gen-crds.mjs`.
// test: src/adapters/kube/crds.test.ts fails when the committed files are stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { crdFiles } = await import('../dist/adapters/kube/crd-files.js');
for (const at of ['crds/', 'charts/svc/crds/', 'config/crd/']) {
  const dir = fileURLToPath(new URL(`../${at}`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(crdFiles())) {
    writeFileSync(`${dir}${name}`, text);
    console.log(`wrote ${at}${name}`);
  }
}

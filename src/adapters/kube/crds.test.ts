/** The CRDs under crds/ are generated from the DAG JSON Schema, structural, and free of defaults. */
import { readFileSync } from 'node:fs';
import { crdFiles } from './crd-files.js';
import { structuralProblems } from './crd-schema.js';
import { DAG_CRD, DAG_RUN_CRD } from './crds.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const schemaOf = (crd: Obj): Obj => crd.spec.versions[0].schema.openAPIV3Schema;

describe('CRDs', () => {
  const files = Object.entries(crdFiles()).flatMap(([name, text]) => ['crds', 'charts/svc/crds', 'config/crd'].map((dir) => [`${dir}/${name}`, text]));
  test.each(files)('%s is what hack/gen-crds.mjs writes now (no drift from the schema)', (file, text) => {
    const committed = readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');
    if (committed !== text) throw new Error(`${file} is stale: run \`npm run build && node hack/gen-crds.mjs\``);
  });

  test.each([['Dag', DAG_CRD], ['DagRun', DAG_RUN_CRD]])('%s: structural (every node typed, nothing a CRD cannot hold) and no defaults', (_kind, crd) => {
    expect(structuralProblems(schemaOf(crd as Obj))).toEqual([]);
    expect(JSON.stringify(crd)).not.toMatch(/"default"/);
  });

  test('Dag spec: the DAG fields with descriptions; steps a list of step objects; local sub-DAGs a list', () => {
    const spec = schemaOf(DAG_CRD).properties.spec;
    expect(spec.properties.schedule.description).toMatch(/cron/);
    expect(spec.properties.steps.type).toBe('array');
    expect(spec.properties.steps.items.properties.command.description).toMatch(/Command line/);
    expect(spec.properties.steps.items.properties.retryPolicy.properties.limit).toBeDefined();
    expect(spec.properties.localDags.items.required).toEqual(['name']);
    expect(spec.properties.maxActiveRuns).toMatchObject({ type: 'integer', minimum: -1 });
  });

  test('names, short names, category, status subresource and printer columns', () => {
    for (const crd of [DAG_CRD, DAG_RUN_CRD] as Obj[]) {
      expect(crd.spec.names.categories).toEqual(['svc']);
      expect(crd.spec.versions[0].subresources).toEqual({ status: {} });
    }
    expect((DAG_RUN_CRD as Obj).spec.versions[0].additionalPrinterColumns.map((c: Obj) => c.name)).toEqual(['DAG', 'Status', 'Steps', 'Started', 'Age']);
    expect((DAG_CRD as Obj).spec.versions[0].additionalPrinterColumns.map((c: Obj) => c.name)).toEqual(['Schedule', 'Suspended', 'Last Run', 'Age']);
  });
});

/** DAG file <-> Dag manifest: the manifest's spec means what the file means, for every example. */
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseDagText } from '../../core/spec/load.js';
import type { DagDefinition } from '../../core/spec/types.js';
import { dagManifest, dagTextOf, manifestText } from './manifest.js';

const examples = new URL('../../../examples/', import.meta.url);
const files = readdirSync(examples).filter((f) => f.endsWith('.yaml'));

/** What a definition means, without what the file name decides. */
const meaning = (d: DagDefinition) => ({ ...d, name: '', type: undefined, steps: d.steps.map((s) => ({ ...s })) });

describe('Dag manifests', () => {
  test.each(files)('examples/%s: the manifest spec, written back as a DAG file, loads to the same definition', (f) => {
    const text = readFileSync(new URL(f, examples), 'utf8');
    const { manifest, errors } = dagManifest(text, f.replace(/\.yaml$/, ''), 'default');
    expect(errors).toEqual([]);
    const back = parseDagText(dagTextOf(manifest!.spec), 'x');
    expect(back.errors).toEqual([]);
    expect(meaning(back.definition)).toEqual(meaning(parseDagText(text, 'x').definition));
  });

  test.each(files)('examples/kubernetes/%s is the manifest `svc kube manifest` prints', (f) => {
    const text = readFileSync(new URL(f, examples), 'utf8');
    const committed = readFileSync(new URL(`kubernetes/${f}`, examples), 'utf8');
    expect(committed).toBe(`# Generated: svc kube manifest examples/${f}\n${manifestText(dagManifest(text, f.replace(/\.yaml$/, '')).manifest!)}`);
  });

  test('map form, bare commands and nested parallel lists become a plain list with the same edges', () => {
    const text = 'steps:\n  - echo a\n  - [echo b, echo c]\n  - echo d\n---\nname: sub\nsteps:\n  x:\n    command: echo x\n  y:\n    command: echo y\n    depends: x\n';
    const { manifest } = dagManifest(text, 'nested');
    const spec = manifest!.spec as { type: string; steps: { name: string; command: string; depends: string[] }[]; localDags: { name: string; type: string }[] };
    expect(spec.type).toBe('graph');
    expect(spec.steps.map((s) => [s.name, s.command, s.depends])).toEqual([
      ['cmd_1', 'echo a', []], ['cmd_2', 'echo b', ['cmd_1']], ['cmd_3', 'echo c', ['cmd_1']], ['cmd_4', 'echo d', ['cmd_2', 'cmd_3']],
    ]);
    expect(spec.localDags[0]).toMatchObject({ name: 'sub', type: 'graph' });
    const back = parseDagText(dagTextOf(manifest!.spec), 'nested');
    expect(back.errors).toEqual([]);
    expect(back.definition.steps.map((s) => s.depends)).toEqual([[], ['cmd_1'], ['cmd_1'], ['cmd_2', 'cmd_3']]);
    expect(back.localDags.sub!.steps.map((s) => s.depends)).toEqual([[], ['x']]);
  });

  test('names: a fileName that is not a DNS label is hashed, the original kept; an invalid one or an invalid DAG is refused', () => {
    const m = dagManifest('steps:\n  - echo hi\n', 'My_Dag').manifest!;
    expect(m.metadata.name).toMatch(/^my-dag-[0-9a-z]{13}$/);
    expect(m.metadata.annotations['svc.io/file-name']).toBe('My_Dag');
    expect(dagManifest('steps:\n  - echo hi\n', '../x').errors[0]).toMatch(/file name/);
    expect(dagManifest('steps:\n  - name: a\n    depends: nope\n', 'bad').errors.join()).toMatch(/nope/);
    expect(parse(manifestText(m))).toEqual(m);
  });
});

import { Problems, unique } from '../errors.js';
import { loadDagText } from '../load.js';
import { checkStepConfigs } from '../step-configs.js';
import { checkArchive } from './archive.js';

/** The load errors plus the archive check's problems (passed in explicitly: the same before and after the registry has it). */
function problems(yaml: string): string[] {
  const file = loadDagText(yaml, { fileName: 'd' });
  const p = new Problems();
  if (file.dag) checkStepConfigs(file.dag, p, { archive: checkArchive });
  return unique([...file.errors, ...p.list]);
}

describe('load-time check of archive steps', () => {
  test('valid steps of each command; ${VAR} counts as given', () => {
    expect(problems(`
params: [CMD: list, SRC: a.zip, FMT: zip, N: "1"]
steps:
  - { name: c, type: archive, command: create, config: { source: data, destination: out.tgz, include: ["**/*.txt"], exclude: "*.log", verifyIntegrity: true } }
  - { name: x, type: archive, command: EXTRACT, config: { source: out.tgz, destination: d, overwrite: false, stripComponents: 1, format: tgz } }
  - { name: l, type: archive, command: list, config: { source: out.tgz } }
  - { name: t, type: archive, command: "\${CMD}", config: { source: "\${SRC}", format: "\${FMT}", stripComponents: "\${N}", overwrite: "\${N}" } }
`)).toEqual([]);
  });

  test('a missing or unknown command, missing paths, bad values and unknown fields are reported', () => {
    expect(problems(`
type: graph
steps:
  - { name: none, type: archive, config: { source: a } }
  - { name: verb, type: archive, command: compress, config: { source: a } }
  - { name: nosrc, type: archive, command: list }
  - { name: nodest, type: archive, command: create, config: { source: data } }
  - name: bad
    type: archive
    command: extract
    config: { source: a.rar, format: rar, include: [1], exclude: { a: b }, verifyIntegrity: yes please, stripComponents: -1, strip_components: 1 }
`)).toEqual([
      'steps[0] (none).command: is required for archive steps (create, extract, list)',
      'steps[1] (verb).command: must be one of create, extract, list for archive steps',
      'steps[2] (nosrc).config.source: is required for archive steps',
      'steps[3] (nodest).config.destination: is required for create (the archive to write)',
      'steps[4] (bad).config.include: must be a list of glob patterns',
      'steps[4] (bad).config.exclude: must be a list of glob patterns',
      'steps[4] (bad).config.format: must be one of tar, tar.gz, tgz, zip',
      'steps[4] (bad).config.verifyIntegrity: must be true or false',
      'steps[4] (bad).config.stripComponents: must be a whole number of at least 0',
      'steps[4] (bad).config.strip_components: is not an archive step field',
    ]);
  });
});

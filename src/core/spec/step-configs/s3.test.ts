import { Problems, unique } from '../errors.js';
import { loadDagText } from '../load.js';
import { checkStepConfigs } from '../step-configs.js';
import { checkS3 } from './s3.js';

/** The load errors plus the s3 check's problems (passed in explicitly: the same before and after the registry has it). */
function problems(yaml: string): string[] {
  const file = loadDagText(yaml, { fileName: 'd' });
  const p = new Problems();
  if (file.dag) checkStepConfigs(file.dag, p, { s3: checkS3 });
  return unique([...file.errors, ...p.list]);
}

describe('load-time check of s3 steps', () => {
  test('the bucket may come from the DAG-level block; trees need no key; ${VAR} counts as given', () => {
    expect(problems(`
params: [CMD: list, B: bkt, N: "5"]
s3: { bucket: artifacts, region: eu-west-1, endpoint: "http://127.0.0.1:9000", forcePathStyle: true }
steps:
  - { name: up, type: s3, command: upload, config: { source: a.txt, key: a.txt, contentType: text/plain, storageClass: standard_ia } }
  - { name: tree, type: s3, command: upload, config: { source: dir, recursive: true } }
  - { name: down, type: s3, command: download, config: { key: a.txt, destination: out/ } }
  - { name: pre, type: s3, command: download, config: { prefix: logs/, destination: logs } }
  - { name: ls, type: s3, command: LIST, config: { prefix: logs/, maxKeys: 10 } }
  - { name: rm, type: s3, command: delete, config: { prefix: tmp/ } }
  - { name: t, type: s3, command: "\${CMD}", config: { bucket: "\${B}", maxKeys: "\${N}", recursive: "\${N}" } }
`)).toEqual([]);
  });

  test('missing command, bucket and per-command fields, bad values and unknown fields are reported', () => {
    expect(problems(`
type: graph
steps:
  - { name: none, type: s3, config: { bucket: b } }
  - { name: verb, type: s3, command: copy, config: { bucket: b } }
  - { name: nobucket, type: s3, command: list }
  - { name: up, type: s3, command: upload, config: { bucket: b } }
  - { name: down, type: s3, command: download, config: { bucket: b } }
  - { name: rm, type: s3, command: delete, config: { bucket: b } }
  - name: bad
    type: s3
    command: list
    config: { bucket: b, maxKeys: 0, recursive: maybe, storageClass: cold, endpoint: "127.0.0.1:9000", secret_access_key: x }
`)).toEqual([
      'steps[0] (none).command: is required for s3 steps (upload, download, list, delete)',
      'steps[1] (verb).command: must be one of upload, download, list, delete for s3 steps',
      'steps[2] (nobucket).config.bucket: is required for s3 steps (here or in the DAG-level s3 block)',
      'steps[3] (up).config.source: is required for upload (the local file or directory)',
      'steps[3] (up).config.key: is required for upload (or recursive: true, or a prefix)',
      'steps[4] (down).config.destination: is required for download (the local path)',
      'steps[4] (down).config.key: is required for download (or recursive: true, or a prefix)',
      'steps[5] (rm).config.key: or config.prefix is required for delete',
      'steps[6] (bad).config.recursive: must be true or false',
      'steps[6] (bad).config.maxKeys: must be a whole number of at least 1',
      'steps[6] (bad).config.storageClass: must be one of STANDARD, REDUCED_REDUNDANCY, STANDARD_IA, ONEZONE_IA, INTELLIGENT_TIERING, GLACIER, DEEP_ARCHIVE, GLACIER_IR, OUTPOSTS, SNOW, EXPRESS_ONEZONE',
      'steps[6] (bad).config.endpoint: must be an http:// or https:// URL',
      'steps[6] (bad).config.secret_access_key: is not an s3 step field',
    ]);
  });
});

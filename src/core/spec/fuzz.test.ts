import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { loadDagText } from './load.js';
import { rng } from './testing.js';

const here = dirname(fileURLToPath(import.meta.url));

const KEYS = ['name', 'steps', 'command', 'depends', 'type', 'tags', 'schedule', 'params', 'env', 'container', 'ssh',
  'retryPolicy', 'repeatPolicy', 'parallel', 'output', 'handlerOn', 'exit', 'continueOn', 'config', 'call', 'id', 'x'];
const SCALARS = [null, true, false, 0, -1, 1.5, 1e308, '', 'graph', '@daily', '${X}', '~', 'a=b c', '0 0 * * *', '\u0000', '"'];

function junk(r: () => number, depth: number): unknown {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const roll = r();
  if (depth <= 0 || roll < 0.35) return pick(SCALARS);
  if (roll < 0.65) return Array.from({ length: Math.floor(r() * 4) }, () => junk(r, depth - 1));
  return Object.fromEntries(Array.from({ length: Math.floor(r() * 5) }, () => [pick(KEYS), junk(r, depth - 1)]));
}

function mutate(text: string, r: () => number): string {
  const chars = [...text];
  for (let i = 0; i < 5; i++) {
    const at = Math.floor(r() * (chars.length + 1));
    const op = r();
    if (op < 0.4) chars.splice(at, 1);
    else if (op < 0.8) chars.splice(at, 0, ' :-[]{}"\'&*!|>\n#'.charAt(Math.floor(r() * 17)));
    else chars.splice(at, 0, '\n  ');
  }
  return chars.join('');
}

function assertTotal(text: string): void {
  let result: ReturnType<typeof loadDagText> | undefined;
  expect(() => { result = loadDagText(text, { fileName: 'fuzz' }); }).not.toThrow();
  expect(Array.isArray(result?.errors)).toBe(true);
  expect(result?.errors.every((e) => typeof e === 'string')).toBe(true);
  if (result?.errors.length === 0) expect(result.dag).toBeDefined();
}

describe('loadDagText never throws', () => {
  it('random structures', () => {
    const r = rng(42);
    for (let i = 0; i < 300; i++) assertTotal(stringify({ steps: junk(r, 4), ...(junk(r, 3) as object) }));
  });

  it('random scalars and raw garbage', () => {
    const r = rng(7);
    for (let i = 0; i < 200; i++) {
      const len = Math.floor(r() * 80);
      assertTotal(Array.from({ length: len }, () => String.fromCharCode(Math.floor(r() * 128))).join(''));
    }
  });

  it('mutated fixtures', () => {
    const r = rng(1234);
    const dir = join(here, 'testdata/valid');
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (let i = 0; i < 40; i++) assertTotal(mutate(text, r));
    }
  });

  it.each([
    ['deep flow nesting', `steps: ${'['.repeat(5000)}${']'.repeat(5000)}`],
    ['deep block nesting', Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')],
    ['huge string', `name: ${'a'.repeat(2_000_000)}\nsteps: [echo]`],
    ['huge command', `steps:\n  - command: "${'x'.repeat(1_000_000)}"`],
    ['alias bomb', `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\nsteps: [echo]`],
    ['many documents', Array.from({ length: 300 }, (_, i) => `name: d${i}\nsteps: [echo]`).join('\n---\n')],
    ['many steps', `steps:\n${Array.from({ length: 3000 }, (_, i) => `  - echo ${i}`).join('\n')}`],
    ['binary', '\u0000\u0001\uFFFF\uD800'],
    ['tabs', 'steps:\n\t- echo'],
  ])('%s', (_name, text) => assertTotal(text));
});

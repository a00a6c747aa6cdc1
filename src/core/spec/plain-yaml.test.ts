import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { readPlainYaml } from './plain-yaml.js';
import { rng } from './testing.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** What the `yaml` package makes of a text, with the options the loader uses: 'error' when it reports any. */
function viaYaml(text: string): unknown {
  const docs = parseAllDocuments(text, { merge: true, prettyErrors: false, uniqueKeys: true });
  if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0)) return 'error';
  return docs.map((d) => d.toJS({ maxAliasCount: 1000 }));
}

/** The fast reader either declines a text or gives exactly what `yaml` gives. Returns whether it took it. */
function agrees(text: string): boolean {
  const fast = readPlainYaml(text);
  if (fast === undefined) return false;
  try {
    expect(fast).toEqual(viaYaml(text));
  } catch (e) {
    throw new Error(`for ${JSON.stringify(text)}:\n${e instanceof Error ? e.message : String(e)}`);
  }
  return true;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

const SCALARS = [
  'true', 'True', 'TRUE', 'tRue', 'false', 'no', 'yes', 'on', 'null', 'Null', 'NULL', 'nULL', '~', '0', '-0', '+0', '007', '12', '+12', '-12',
  '1_000', '0o17', '0o19', '0O17', '0x1f', '0X1F', '-0x1f', '0b101', '1.5', '-1.5', '.5', '+.5', '1.', '1e3', '1E-3', '-2.5e+4', '1.e5', '.e5',
  '.inf', '-.Inf', '+.INF', 'inf', '.nan', '.NaN', 'nan', '123456789012345678901234', '1:30', '12:30:00', '2026-11-22', '@daily', '0 */5 * * *',
  'echo hello world', 'a#b', 'a #b', 'a  # comment', 'x: y', 'x:y', 'x:', '-', '- x', '-x', '-1', '?', '? x', '?x', ':x', ': x', ',', 'a,b', '[a]',
  '{}', '{a: 1}', '[]', '[a, b]', '[a, "b, c"]', '[ 1 , -2 , x y ]', '[a, [b]]', '[a,]', '["a"]', "['it''s']", '"quoted"', '"a\\nb\\t\\"c\\\\"',
  '"\\x41\\u00e9\\/"', '"\\q"', '"\\ud800"', '"unterminated', '"x" # c', '"x"#c', "'single'", "'it''s'", "'x' y", '&anchor x', '*alias', '!tag x',
  '!!str 1', '%x', '@x', '`x`', '|', '|-', '|+', '>', '|2', 'a\u00a0', '\u00a0a', 'é', '${VAR}', '$(cmd)', '"${X}"', 'a | b', 'a > b', 'a\\b',
];

const BLOCKS = ['|\n  line 1\n  line 2\n', '|-\n  one\n\n  two\n\n', '|+\n  kept\n\n\n', '|\n    deeper\n  shallower\n', '|\n\n  after blank\n',
  '|\n  # not a comment\n  x\n', '| # header comment\n  x\n', '|\n  x\n # less indented comment\n', '|\n   \n  x\n', '|\n  x\n   \n  y\n', '|\nx\n', '>\n  folded\n'];

describe('readPlainYaml', () => {
  test('every YAML file in the repository: declined or read exactly as `yaml` reads it; the examples are read', () => {
    const files = yamlFiles(root);
    expect(files.length).toBeGreaterThan(10);
    const taken = files.filter((f) => agrees(readFileSync(f, 'utf8')));
    for (const example of ['hello.yaml', 'fan-out.yaml', 'graph.yaml']) expect(taken).toContain(join(root, 'examples', example));
  });

  test('a long chain of steps (what the bench runs) is read by the fast path', () => {
    const text = ['type: graph', 'steps:', ...Array.from({ length: 100 }, (_, i) => `  - name: s${i}\n    command: "true"${i ? `\n    depends: [s${i - 1}]` : ''}`)].join('\n');
    expect(agrees(text)).toBe(true);
  });

  test.each(SCALARS)('scalar %j: as a map value, a sequence item and a flow item', (s) => {
    agrees(`key: ${s}\n`);
    agrees(`key: ${s} # trailing comment\n`);
    agrees(`list:\n  - ${s}\n  - after\n`);
    agrees(`list: [${s}]\n`);
    agrees(`list: [a, ${s}, b]\n`);
    agrees(`${s}: value\n`);
  });

  test.each(BLOCKS)('block scalar %j in a map, in a sequence, at the end', (b) => {
    agrees(`script: ${b}next: 1\n`);
    agrees(`script: ${b}`);
    agrees(`steps:\n  - ${b.replace(/\n/g, '\n  ')}  - x\n`);
    agrees(`a:\n  script: ${b.replace(/\n(?=.)/g, '\n  ')}b: 2\n`);
  });

  test('documents, comments and structure', () => {
    const cases = [
      'a: 1\n---\nb: 2\n', '---\na: 1\n', '# c\n---\na: 1\n', 'a: 1\n---\n', 'a: 1\n--- # c\nb: 1\n', 'a: 1\n--- x\n', 'a: 1\n...\n', '%YAML 1.2\n---\na: 1\n',
      '', '# only a comment\n', 'a: 1\na: 2\n', 'a:\n- x\n- y\nb: 1\n', 'a:\n  - x\n  -   y\n', 'a:\n  -\n    b: 1\n', 'a:\n  - b: 1\n    c: 2\n  - d\n',
      'a:\n  - b: 1\n   c: 2\n', 'a:\n  b:\n    c:\n      d: 1\n  e: 2\n', 'a:\n   b: 1\n  c: 2\n', ' a: 1\n', 'a: 1\n b: 2\n', 'a: x\n  y\n', '- a\n- b\n',
      'a:\n- b\n  c\n', 'a:\n  - - x\n', 'a: {}\nb: []\n', 'a: { }\n', 'a:\n\n\n  b: 1\n', 'a: 1 # c\n# d\n  # e\nb: 2\n', 'a:\tb\n', 'a: "x\ty"\n',
      'a: 1\r\nb: 2\r\n', '\ufeffa: 1\n', 'key with space: 1\n', '"quoted": 1\n', '? a\n: 1\n', 'a: &x 1\nb: *x\n', '<<: {a: 1}\n', '__proto__: 1\n',
      'a.b-c_d: 1\n', '_x: 1\n', 'a:\n  -\n  - x\n', 'a: -\n', 'a:\n  - \n', 'a:\n  b: 1\n  - c\n', 'a:\n  -  b: 1\n     c: 2\n', 'a: |\n  x\nb: |\n  y\n',
    ];
    for (const c of cases) agrees(c);
    expect(readPlainYaml('a: 1\n---\nb: 2\n')).toEqual([{ a: 1 }, { b: 2 }]);
  });

  test('nesting deep enough to exhaust the stack is left to `yaml`, not thrown', () => {
    const deep = Array.from({ length: 20_000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + '\n';
    expect(readPlainYaml(deep)).toBeUndefined();
  });

  test('random documents and mutations of them', () => {
    const r = rng(20261122);
    const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)] as T;
    const keys = ['name', 'steps', 'command', 'depends', 'env', 'x', 'true', 'a b', 'k'];
    const gen = (indent: string, depth: number): string => {
      const lines: string[] = [];
      const n = 1 + Math.floor(r() * 4);
      const step = pick(['  ', '    ', ' ']);
      for (let i = 0; i < n; i++) {
        const key = pick(keys);
        const roll = r();
        if (r() < 0.15) lines.push(`${indent}${pick(['# comment', '', '   '])}`);
        if (depth <= 0 || roll < 0.4) lines.push(`${indent}${key}: ${pick(SCALARS)}`);
        else if (roll < 0.55) lines.push(`${indent}${key}:\n${gen(indent + step, depth - 1)}`);
        else if (roll < 0.65) lines.push(`${indent}${key}: ${pick(BLOCKS).replace(/\n(?=.)/g, `\n${indent}`).replace(/\n$/, '')}`);
        else {
          const dashIndent = r() < 0.3 ? indent : indent + step;
          lines.push(`${indent}${key}:`);
          for (let j = 0; j < 1 + Math.floor(r() * 3); j++) {
            if (r() < 0.5) lines.push(`${dashIndent}- ${pick(SCALARS)}`);
            else lines.push(`${dashIndent}- ${gen(`${dashIndent}  `, depth - 1).slice(dashIndent.length + 2)}`);
          }
        }
      }
      return lines.join('\n');
    };
    let taken = 0;
    for (let i = 0; i < 3000; i++) {
      let text = gen('', 3) + '\n';
      if (r() < 0.2) text += `---\n${gen('', 2)}\n`;
      if (agrees(text)) taken++;
      const chars = [...text];
      for (let k = 0; k < 3; k++) chars.splice(Math.floor(r() * (chars.length + 1)), r() < 0.5 ? 1 : 0, pick([' ', '\n', '-', ':', '#', '"', "'", '|', '  ', '\n  ', '[', ']']));
      agrees(chars.join(''));
    }
    expect(taken).toBeGreaterThan(300);
  });
});

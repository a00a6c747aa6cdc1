/**
 * Issue 19: every case of test/parity/cases/*.yaml run on the reference binary and on svc, compared.
 * A case marked `differs` is a deliberate difference (its ADR says why); one marked `pending` is a
 * divergence not fixed yet, and its test asserts that it still differs (fixing it fails the test until
 * the mark goes). The counts are printed at the end.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../helpers/cli.js';
import { ASPECTS, findDagu, runDagu, runSvc, view, type Outcome, type ParityCase } from './harness.js';

const DIR = join(import.meta.dirname, 'cases');
const cases: ParityCase[] = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort()
  .flatMap((f) => (parse(readFileSync(join(DIR, f), 'utf8')) as ParityCase[]).map((c) => ({ ...c, name: `${f.replace(/\.yaml$/, '')}: ${c.name}` })))
  // PARITY_ONLY=text: only the cases whose name holds it (jest's -t would still run every case first).
  .filter((c) => !process.env.PARITY_ONLY || c.name.includes(process.env.PARITY_ONLY));

/**
 * The text of the ADR section a deliberate difference points at (`docs/adr/NNNN-title.md#n`: its
 * decision numbered n), whitespace folded; undefined when the file or the decision is not there.
 */
function adrSection(ref: string): string | undefined {
  const [path, n] = ref.split('#');
  if (!path || !n || !/^\d+$/.test(n) || !existsSync(join(ROOT, path))) return undefined;
  const text = readFileSync(join(ROOT, path), 'utf8');
  const m = new RegExp(`^${n}\\. ([\\s\\S]*?)(?=^\\d+\\. |^## |(?![\\s\\S]))`, 'm').exec(text);
  return m?.[1]?.replace(/\s+/g, ' ');
}

const dagu = findDagu();
if (!dagu && process.env.CI === 'true') throw new Error('the reference binary (npm @dagu-org/dagu-linux-x64) is required under CI=true');
if (!dagu) console.warn('!!! SKIPPING the parity corpus: no reference binary (npm ci installs @dagu-org/dagu-linux-x64, or set DAGU_BIN)');

const results = new Map<string, { dagu: Outcome; svc: Outcome } | Error>();
const tally = { same: 0, differs: 0, pending: 0, failed: 0 };

/** Both systems, a few cases at a time. */
async function runAll(bin: string): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 3 }, async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      try {
        const [d, s] = await Promise.all([runDagu(c, bin), runSvc(c)]);
        results.set(c.name, { dagu: d, svc: s });
      } catch (e) {
        results.set(c.name, e instanceof Error ? e : new Error(String(e)));
      }
    }
  }));
}

(dagu ? describe : describe.skip)('parity with the reference implementation', () => {
  beforeAll(() => runAll(dagu!), 600_000);
  afterAll(() => {
    console.log(`parity corpus: ${cases.length} cases; ${tally.same} the same, ${tally.differs} deliberate differences, ${tally.pending} pending divergences, ${tally.failed} failed`);
  });

  test.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const r = results.get(c.name);
    if (r instanceof Error) { tally.failed++; throw r; }
    const aspects = c.compare ?? ASPECTS;
    const [d, s] = [view(r!.dagu, aspects, c.stdoutOf), view(r!.svc, aspects, c.stdoutOf)];
    if (c.pending) {
      tally.pending++;
      expect(s).not.toEqual(d);
      return;
    }
    try {
      // A deliberate difference is argued in the section it names, which names the case.
      if (c.differs) expect(adrSection(c.differs) ?? `no section ${c.differs}`).toContain(`\`${c.name}\``);
      expect(s).toEqual(d);
      if (c.svc) expect(r!.svc).toMatchObject(c.svc);
    } catch (e) {
      tally.failed++;
      if (process.env.PARITY_DEBUG) console.log(`${c.name}\n  dagu ${JSON.stringify(d)}\n  svc  ${JSON.stringify(s)}`);
      throw e;
    }
    if (c.differs) tally.differs++;
    else tally.same++;
  });
});

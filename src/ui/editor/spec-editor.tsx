/**
 * The DAG spec editor (CodeMirror 6, YAML), loaded in its own chunk with the first page that edits a DAG.
 * As the text changes it is checked (check.ts): syntax and the DAG schema here, then the server's
 * POST /dags/validate; problems are underlined at their line and listed under the editor, where each
 * one moves the cursor to it. Hovering a field's name shows the schema's description of it, and field
 * names are completed from the schema (complete.ts). Read-only for a session that may not write DAGs.
 */
import { autocompletion, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { forceLinting, linter, lintGutter, lintKeymap, type Diagnostic } from '@codemirror/lint';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, hoverTooltip, keymap, lineNumbers } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { useEffect, useRef, useState } from 'react';
import { api, must } from '../api/client';
import { parseAllDocuments, type Document } from 'yaml';
import { checkLocally, lineOf, placeServerMessages, type Problem } from './check';
import { fieldCompletion } from './complete';
import schemaJson from './dag-schema.generated.json';
import { keyAt, SchemaDocs } from './schema-docs';

export interface SpecEditorProps {
  /** The text the editor starts with (the editor owns it from then on). */
  initial: string;
  readOnly: boolean;
  /** The DAG's file name: the server checks the text as that DAG (its default name, calls to itself); may change. */
  name: string;
  label: string;
  onChange: (text: string) => void;
  /** Ctrl-S (Cmd-S): save or create, as the page's button would. */
  onSave?: () => void;
}

const highlight = HighlightStyle.define([
  { tag: tags.definition(tags.propertyName), color: 'var(--code-key)', fontWeight: '600' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--code-string)' },
  { tag: tags.lineComment, color: 'var(--muted)', fontStyle: 'italic' },
  { tag: [tags.meta, tags.keyword, tags.labelName, tags.typeName], color: 'var(--code-meta)' },
]);

const theme = EditorView.theme({
  '&': { backgroundColor: 'var(--surface)', color: 'var(--text)', fontSize: '0.9rem' },
  '.cm-content': { fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace', caretColor: 'var(--text)' },
  '.cm-scroller': { fontFamily: 'inherit' },
  '.cm-gutters': { backgroundColor: 'var(--surface-2)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'color-mix(in srgb, var(--surface-2) 60%, transparent)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--surface)' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--text)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: 'color-mix(in srgb, var(--accent) 30%, transparent)' },
  '.cm-tooltip': { backgroundColor: 'var(--surface)', color: 'var(--text)', border: '1px solid var(--border)' },
  '.cm-panels': { backgroundColor: 'var(--surface-2)', color: 'var(--text)' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--accent-text)' },
  '.cm-tooltip.cm-completionInfo': { maxWidth: '26rem', padding: '0.35rem 0.55rem' },
});

/** The YAML document (`---` separated) that holds `pos`. */
function docAt(docs: Document[], pos: number): Document | undefined {
  return docs.find((d) => d.range && d.range[0] <= pos && pos <= d.range[2]) ?? docs[docs.length - 1];
}

const dagDocs = new SchemaDocs(schemaJson);

/** Hovering a field's name shows what the DAG schema says of it. */
const fieldDocs = hoverTooltip((view, pos) => {
  const docs = Array.from(parseAllDocuments(view.state.doc.toString()) as Iterable<Document>);
  const doc = docAt(docs, pos);
  const key = doc ? keyAt(doc, pos) : undefined;
  const text = key ? dagDocs.describeField(key.path) : undefined;
  if (!key || !text) return null;
  return {
    pos: key.from, end: key.to, above: true,
    create: () => {
      const dom = document.createElement('div');
      dom.className = 'field-doc';
      const name = document.createElement('strong');
      name.textContent = String(key.path[key.path.length - 1]);
      dom.append(name, document.createTextNode(`: ${text}`));
      return { dom };
    },
  };
});

/** The server's problems with the text, or undefined when it could not be asked. */
async function serverProblems(spec: string, name: string): Promise<readonly string[] | undefined> {
  try {
    return (await must(api.POST('/dags/validate', { body: { spec, name } }))).errors;
  } catch {
    return undefined;
  }
}

function diagnostics(problems: Problem[]): Diagnostic[] {
  return problems.flatMap((p) => (p.span ? [{ from: p.span.from, to: p.span.to, severity: 'error' as const, message: p.message, source: p.source }] : []));
}

interface Checked {
  text: string;
  problems: Problem[];
  /** The server has had its say on this text (or could not be asked). */
  complete: boolean;
}

export function SpecEditor({ initial, readOnly, name, label, onChange, onSave }: SpecEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  useEffect(() => { changed.current = onChange; }, [onChange]);
  const saver = useRef(onSave);
  useEffect(() => { saver.current = onSave; }, [onSave]);
  // The name can change under the editor (a new DAG's name field): the next check uses the new one.
  const nameRef = useRef(name);
  useEffect(() => {
    if (nameRef.current === name) return;
    nameRef.current = name;
    if (view.current) forceLinting(view.current);
  }, [name]);
  const [checked, setChecked] = useState<Checked>();
  useEffect(() => {
    if (!host.current) return undefined;
    const check = async (v: EditorView): Promise<Diagnostic[]> => {
      const text = v.state.doc.toString();
      const local = checkLocally(text);
      setChecked({ text, problems: local.problems, complete: local.syntaxError });
      if (local.syntaxError) return diagnostics(local.problems);
      const messages = await serverProblems(text, nameRef.current);
      const problems = [...local.problems, ...placeServerMessages(text, local, messages ?? [])];
      if (v.state.doc.toString() === text) setChecked({ text, problems, complete: true });
      return diagnostics(problems);
    };
    const v = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: initial,
        extensions: [
          lineNumbers(), highlightActiveLineGutter(), history(), drawSelection(), indentOnInput(), bracketMatching(),
          highlightActiveLine(), highlightSelectionMatches(), yaml(), syntaxHighlighting(highlight), theme,
          keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => { saver.current?.(); return true; } }, ...completionKeymap, ...defaultKeymap, ...historyKeymap, ...searchKeymap, ...lintKeymap, indentWithTab]),
          autocompletion({ override: [fieldCompletion(dagDocs)], icons: false }),
          linter(check, { delay: 300 }), lintGutter(), fieldDocs,
          EditorState.readOnly.of(readOnly), EditorState.tabSize.of(2),
          EditorView.contentAttributes.of({ 'aria-label': label, 'aria-describedby': 'spec-editor-help', spellcheck: 'false' }),
          EditorView.updateListener.of((u) => { if (u.docChanged) changed.current(u.state.doc.toString()); }),
        ],
      }),
    });
    view.current = v;
    forceLinting(v);
    return () => {
      v.destroy();
      view.current = null;
    };
    // The editor is made once: a new initial text or mode means a new component (its key).
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  const goTo = (offset: number) => {
    const v = view.current;
    if (!v) return;
    v.dispatch({ selection: { anchor: offset }, scrollIntoView: true });
    v.focus();
  };
  return (
    <div className="spec-editor">
      <div ref={host} className="spec-editor-host" data-readonly={readOnly} />
      <p id="spec-editor-help" className="muted small">
        {readOnly ? 'Read-only: your role cannot change DAGs.' : 'YAML. Tab indents; press Escape, then Tab, to leave the editor. Ctrl-S saves, Ctrl-Space completes a field name. Problems are checked as you type; hover a field\'s name for what it means.'}
      </p>
      <ProblemList checked={checked} onGo={goTo} />
    </div>
  );
}

function ProblemList({ checked, onGo }: { checked: Checked | undefined; onGo: (offset: number) => void }) {
  if (!checked) return <p className="muted small" role="status">Checking…</p>;
  const { problems, text, complete } = checked;
  return (
    <section className="problems" aria-label="Problems" data-complete={complete}>
      <p role="status" className={problems.length ? 'error-text small' : 'muted small'}>
        {problems.length === 0 ? (complete ? 'No problems found.' : 'Checking…') : `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}${complete ? '' : ' so far'}`}
      </p>
      {problems.length > 0 ? (
        <ul>
          {problems.map((p) => (
            <li key={`${p.source}:${p.message}`} data-source={p.source}>
              {p.span ? <button type="button" className="link-button" onClick={() => p.span && onGo(p.span.from)}>Line {lineOf(text, p.span.from)}</button> : null}
              {p.span ? ': ' : null}<span className="problem-text">{p.message}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

export default SpecEditor;

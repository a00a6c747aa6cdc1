/**
 * DAG file text <-> Dag manifest. A Dag's `spec` is the DAG file's fields as written, with the
 * file's further documents (local sub-DAGs) as `spec.localDags`. The forms a structural schema cannot
 * hold become lists: bare command strings become `{command}`, and steps written as a map or with
 * nested parallel lists become a plain list with the loader's names and dependencies under
 * `type: graph` (the same edges the file meant). Nothing is defaulted in. Pure.
 */
import { parseAllDocuments, stringify } from 'yaml';
import { dagObjectName, SVC_ANNOTATIONS } from '../../core/naming.js';
import { parseDagText } from '../../core/spec/load.js';
import type { DagDefinition } from '../../core/spec/types.js';
import { isValidFileName } from '../../core/spec/names.js';
import { API_VERSION } from '../../core/resources.js';

type Obj = Record<string, unknown>;

export interface DagManifest {
  apiVersion: typeof API_VERSION;
  kind: 'Dag';
  metadata: { name: string; namespace?: string; annotations: Record<string, string> };
  spec: Obj;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The manifest of a DAG file, or the reasons it has none (an invalid DAG, a bad file name). */
export function dagManifest(text: string, fileName: string, namespace?: string): { manifest?: DagManifest; errors: string[] } {
  if (!isValidFileName(fileName)) return { errors: [`file name ${JSON.stringify(fileName)} must be letters, digits, _ and - (it becomes the Dag's name)`] };
  const parsed = parseDagText(text, fileName);
  if (parsed.errors.length > 0) return { errors: parsed.errors };
  const { spec, errors } = dagSpecOf(text, parsed);
  if (!spec) return { errors };
  const metadata = { name: dagObjectName(fileName), ...(namespace ? { namespace } : {}), annotations: { [SVC_ANNOTATIONS.fileName]: fileName } };
  return { manifest: { apiVersion: API_VERSION, kind: 'Dag', metadata, spec }, errors: [] };
}

/** The spec of a valid DAG file's text: its first document, its further documents as localDags. */
export function dagSpecOf(text: string, parsed = parseDagText(text, 'dag')): { spec?: Obj; errors: string[] } {
  const docs = parseAllDocuments(text).map((d) => d.toJS({ maxAliasCount: 100 }) as unknown).filter((d, i) => i === 0 || d != null);
  const [first, ...rest] = docs;
  if (first != null && !isObj(first)) return { errors: ['the first document is not a mapping'] };
  const spec = specFields(first ?? {}, parsed.definition);
  const localDags = rest.filter(isObj).map((doc) => {
    const name = String(doc.name ?? '');
    return { name, ...specFields(doc, parsed.localDags[name]) };
  });
  return { spec: localDags.length > 0 ? { ...spec, localDags } : spec, errors: [] };
}

function specFields(doc: Obj, def: DagDefinition | undefined): Obj {
  if (doc.steps === undefined) return { ...doc };
  const { steps, plain } = stepList(doc.steps, def);
  const { steps: _written, ...rest } = doc;
  return plain ? { ...doc, steps } : { ...rest, type: 'graph', steps };
}

/** `plain`: the file's list needed no rewriting beyond bare strings; otherwise names and depends come from the loader. */
function stepList(raw: unknown, def: DagDefinition | undefined): { steps: Obj[]; plain: boolean } {
  const asStep = (s: unknown): Obj => (isObj(s) ? { ...s } : { command: s });
  if (Array.isArray(raw) && !raw.some(Array.isArray)) return { steps: raw.map(asStep), plain: true };
  const flat = Array.isArray(raw) ? raw.flat().map(asStep) : Object.entries(isObj(raw) ? raw : {}).map(([name, s]) => ({ name, ...asStep(s) }));
  const steps = flat.map((s, i) => {
    const loaded = def?.steps[i];
    return loaded ? { ...s, name: loaded.name, depends: loaded.depends } : s;
  });
  return { steps, plain: false };
}

/** The DAG file text of a spec: the spec as the first document, each local sub-DAG as a further one. */
export function dagTextOf(spec: Obj): string {
  const { localDags, ...main } = spec;
  const docs = [main, ...(Array.isArray(localDags) ? localDags : [])];
  return docs.map((d) => stringify(d, { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n');
}

/** The manifest as YAML text (what `svc kube manifest` prints). */
export const manifestText = (m: DagManifest): string => stringify(m, { lineWidth: 0, aliasDuplicateObjects: false });

/**
 * The Dag and DagRun CustomResourceDefinitions (ARCHITECTURE "The resource model"), generated from
 * the one DAG JSON Schema: `hack/gen-crds.mjs` writes them to crds/, and a test fails when the
 * committed files drift from this. Pure.
 */
import { DAG_SCHEMA } from '../../core/spec/schema.js';
import { StructuralConverter, type JsonSchema } from './crd-schema.js';

export const GROUP = 'svc.io';
export const VERSION = 'v1alpha1';

const str = (description: string): JsonSchema => ({ type: 'string', description });
const bool = (description: string): JsonSchema => ({ type: 'boolean', description });
const keepAll = (description: string): JsonSchema => ({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });
const stringMap = (description: string): JsonSchema => ({ type: 'object', description, additionalProperties: { type: 'string' } });
const runRef = (description: string): JsonSchema => ({
  type: 'object', description, required: ['name', 'dagRunId'],
  properties: { name: str('DAG name of the run.'), dagRunId: str('Run id.') },
});

/** Standard status conditions (type, status, reason, message, lastTransitionTime). */
const conditions: JsonSchema = {
  type: 'array',
  description: 'Current state as standard conditions.',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status'],
    properties: {
      type: str('Condition type.'),
      status: { type: 'string', enum: ['True', 'False', 'Unknown'], description: 'True, False or Unknown.' },
      reason: str('One-word reason in CamelCase.'),
      message: str('Human-readable detail.'),
      lastTransitionTime: { type: 'string', format: 'date-time', description: 'When the status last changed.' },
      observedGeneration: { type: 'integer', description: 'The generation of the spec this condition was computed from.' },
    },
  },
};

/**
 * The DAG document as structured data. Steps are a list of step objects (what `svc kube manifest`
 * writes for the file's other forms: a map, bare command strings, nested parallel lists), so that
 * `kubectl explain dag.spec.steps` lists the step fields. Local sub-DAGs (the file's further
 * documents) are a list too; the admission webhook validates them with the whole schema.
 */
export function dagSpecSchema(): JsonSchema {
  const definitions = DAG_SCHEMA.definitions as unknown as Record<string, JsonSchema>;
  const conv = new StructuralConverter(definitions);
  const { steps: _fileForms, ...rest } = DAG_SCHEMA.properties as unknown as Record<string, JsonSchema>;
  const dag = conv.convert({ type: 'object', properties: rest });
  const stepList: JsonSchema = { type: 'array', description: 'The steps, in order (chain) or linked by depends (graph).', items: conv.convert({ $ref: '#/definitions/step' }) };
  const local: JsonSchema = {
    type: 'array',
    description: 'Local sub-DAGs (the further documents of a DAG file): the same fields as spec, each with its own name; steps call them by name.',
    items: { type: 'object', required: ['name'], properties: { name: str('Name of the local sub-DAG.') }, 'x-kubernetes-preserve-unknown-fields': true },
  };
  return {
    type: 'object',
    description: 'The DAG definition: the fields of a DAG file (SPEC 2.2).',
    properties: { ...(dag.properties as Record<string, JsonSchema>), steps: stepList, localDags: local },
  };
}

const dagStatus: JsonSchema = {
  type: 'object',
  properties: {
    suspended: bool('Scheduled starts are skipped while true.'),
    errors: { type: 'array', description: 'Validation errors of the definition.', items: { type: 'string' } },
    nextRun: str('Next scheduled start (RFC 3339).'),
    lastRun: {
      type: 'object', description: 'The latest run.',
      properties: { dagRunId: str('Run id.'), status: str('Status label.'), startedAt: str('Start time.'), finishedAt: str('End time.') },
    },
    conditions,
  },
};

const dagRunSpec: JsonSchema = {
  type: 'object',
  description: 'What to run: a snapshot of the resolved definition, with params, trigger and references.',
  properties: {
    dag: str('The Dag to run (its object name), for a DagRun created with kubectl; the snapshot is then taken from it.'),
    dagName: str('DAG name.'),
    dagRunId: str('Run id.'),
    definition: keepAll('Snapshot of the resolved definition at start.'),
    localDags: keepAll('Local sub-DAGs of the definition, by name.'),
    params: str('Params as given at start.'),
    trigger: { type: 'string', enum: ['manual', 'schedule', 'webhook', 'api', 'retry', 'subdag'], description: 'What started the run.' },
    queue: str('Queue name.'),
    sourceFile: str('Where the DAG came from.'),
    workingDir: str('Working directory of the steps.'),
    parent: runRef('The run that called this one as a sub-DAG.'),
    root: runRef('The run at the root of the call tree.'),
    extraEnv: stringMap('Extra built-in variables (WEBHOOK_PAYLOAD, ...).'),
    stopRequested: bool('Set to true to stop the run.'),
    controls: {
      type: 'array',
      description: 'Approval decisions waiting for the operator (SPEC 3.3), in arrival order; written by the API, removed by the operator once applied.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['id'],
      items: {
        type: 'object',
        required: ['id', 'observation'],
        properties: {
          id: str('Request id, unique within the run.'),
          observation: keepAll('The decision: {type: approve, node, inputs} or {type: reject, node, reason}.'),
        },
      },
    },
  },
};

const dagRunStatus: JsonSchema = {
  type: 'object',
  properties: {
    attemptId: str('Current attempt.'),
    queuedAt: str('When it was queued.'),
    run: keepAll('The run state: status, steps, timestamps (SPEC 3.1, 2.8).'),
    phase: str('Status label of the run.'),
    progress: str('Steps done / steps in all.'),
    writtenAt: str('When the status was last written (RFC 3339, milliseconds).'),
    startedRun: str('For a DagRun created with kubectl that names a Dag (spec.dag): the DagRun svc started from it.'),
    conditions,
  },
};

interface Kind {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  columns: JsonSchema[];
  /** Fields a list or watch may select on (`fieldSelector`); Kubernetes 1.31 and later. */
  selectable?: string[];
  spec: JsonSchema;
  status: JsonSchema;
  description: string;
}

function crd(k: Kind): JsonSchema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${k.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { kind: k.kind, listKind: `${k.kind}List`, plural: k.plural, singular: k.singular, shortNames: k.shortNames, categories: ['svc'] },
      versions: [{
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: k.columns,
        ...(k.selectable ? { selectableFields: k.selectable.map((jsonPath) => ({ jsonPath })) } : {}),
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: k.description,
            properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: k.spec, status: k.status },
          },
        },
      }],
    },
  };
}

const age = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

export const DAG_CRD = crd({
  kind: 'Dag', plural: 'dags', singular: 'dag', shortNames: ['dg'], spec: dagSpecSchema(), status: dagStatus,
  description: 'A workflow: steps and their dependencies, as a DAG file describes it.',
  columns: [
    { name: 'Schedule', type: 'string', jsonPath: '.spec.schedule' },
    { name: 'Suspended', type: 'boolean', jsonPath: '.status.suspended' },
    { name: 'Last Run', type: 'string', jsonPath: '.status.lastRun.status' },
    age,
  ],
});

export const DAG_RUN_CRD = crd({
  kind: 'DagRun', plural: 'dagruns', singular: 'dagrun', shortNames: ['dr'], spec: dagRunSpec, status: dagRunStatus,
  description: 'One run of a DAG: what to run, and how far it got.',
  // The operator watches only runs that have not finished (status.phase), so its memory follows them.
  selectable: ['.status.phase'],
  columns: [
    { name: 'DAG', type: 'string', jsonPath: '.spec.dagName' },
    { name: 'Status', type: 'string', jsonPath: '.status.phase' },
    { name: 'Steps', type: 'string', jsonPath: '.status.progress' },
    { name: 'Started', type: 'date', jsonPath: '.status.run.startedAt' },
    age,
  ],
});

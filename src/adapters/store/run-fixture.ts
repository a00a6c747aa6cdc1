/** A complete DagRun resource for store tests and benchmarks (conformance suites, hack/bench). */
import { dagRunMetadata } from '../../core/naming.js';
import type { DagRunResource, RunRef } from '../../core/resources.js';
import { API_VERSION } from '../../core/resources.js';
import { newRunState } from '../../core/run/state.js';
import { RunStatus } from '../../core/run/status.js';
import { mkDag, mkStep } from '../../core/run/testkit.js';
import type { Tag } from '../../core/spec/types.js';

export interface RunFixture {
  dagName?: string;
  dagRunId?: string;
  creationTimestamp?: string;
  parent?: RunRef;
  labels?: Record<string, string>;
  /** The definition's tags (SPEC 2.9). */
  tags?: Tag[];
  /** The run's status and start time. */
  status?: RunStatus;
  startedAt?: string;
}

/** A complete DagRun resource as the engine would create it (metadata server fields left empty). */
export function makeRun(f: RunFixture = {}): DagRunResource {
  const dagName = f.dagName ?? 'hello';
  const dagRunId = f.dagRunId ?? 'r1';
  const definition = mkDag([mkStep('a'), mkStep('b', { depends: ['a'] })], { name: dagName, tags: f.tags ?? [] });
  const root = f.parent ?? { name: dagName, dagRunId };
  const named = dagRunMetadata({ dagName, dagRunId }, root, f.parent);
  return {
    apiVersion: API_VERSION,
    kind: 'DagRun',
    metadata: {
      ...named, uid: '', resourceVersion: '', creationTimestamp: f.creationTimestamp ?? '',
      labels: { ...named.labels, ...f.labels },
    },
    spec: {
      dagName, dagRunId, definition, localDags: {}, params: 'A=1', trigger: 'manual', workingDir: '/tmp',
      root, ...(f.parent ? { parent: f.parent } : {}),
    },
    status: {
      attemptId: 'att-1', queuedAt: '2024-01-01T00:00:00.000Z',
      run: { ...newRunState(definition), status: f.status ?? RunStatus.NotStarted, startedAt: f.startedAt ?? '' },
    },
  };
}

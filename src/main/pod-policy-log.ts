/** A widened pod policy of steps is said at start, where the install's operators look: never silent. */
import type { EngineLogger } from '../core/ports/engine-ports.js';
import type { PodPolicy } from '../core/spec/pod-policy.js';
import { widenings } from '../config/pod-policy.js';

export function logPodPolicy(policy: PodPolicy, log: Pick<EngineLogger, 'warn'>): void {
  const wider = widenings(policy);
  if (wider.length > 0) log.warn('Pod policy of steps widened by SVC_POD_POLICY', { widened: wider.join('; ') });
}

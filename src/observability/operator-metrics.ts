/**
 * The operator's own metrics (`svc operator`, its /metrics): whether this replica leads, how many runs
 * it drives and how many step Pods it watches, plus the Node.js runtime and process metrics, on a
 * registry of their own. The run metrics of SPEC 4.1 stay with the API server.
 */
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export interface OperatorMetricsSources {
  version: string;
  isLeader(): boolean;
  /** Runs this replica drives now. */
  driving(): number;
  /** Runs waiting for a driver (SVC_MAX_ACTIVE_RUNS reached). */
  waiting(): number;
  /** Step and run-container Pods in the watch cache. */
  stepPods(): number;
}

export class OperatorMetrics {
  readonly registry = new Registry();

  constructor(s: OperatorMetricsSources) {
    const r = this.registry;
    collectDefaultMetrics({ register: r });
    new Gauge({ name: 'svc_operator_info', help: 'The operator build, as a label', labelNames: ['version'], registers: [r] }).set({ version: s.version }, 1);
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({ name, help, registers: [r], collect() { this.set(read()); } });
    gauge('svc_operator_leader', '1 while this replica holds the operator Lease and drives runs', () => (s.isLeader() ? 1 : 0));
    gauge('svc_operator_runs_driving', 'DAG runs this replica drives now', s.driving);
    gauge('svc_operator_runs_waiting', 'DAG runs waiting for this replica to drive them (SVC_MAX_ACTIVE_RUNS reached)', s.waiting);
    gauge('svc_operator_step_pods', 'Step and run-container Pods this replica watches', s.stepPods);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

import { RUN_STEP_TYPES } from '../../core/run-step.js';
import { CONFIG_CHECKS } from '../../core/spec/step-configs.js';
import { STEP_RUNNERS } from './index.js';

test('every svc-code step type has a runner and a load-time check, and runs as svc run-step on Kubernetes', () => {
  expect(Object.keys(STEP_RUNNERS).sort()).toEqual([...RUN_STEP_TYPES].sort());
  expect(Object.keys(CONFIG_CHECKS).sort()).toEqual([...RUN_STEP_TYPES].sort());
});

import { launcherConformance } from '../../core/ports/conformance/launcher.js';
import type { ExecRequest } from '../../core/ports/executor.js';
import { execName } from '../../core/naming.js';
import { MemoryExecutor } from './memory-executor.js';

launcherConformance('MemoryExecutor', async () => {
  let n = 0;
  const executor = new MemoryExecutor((req) => {
    const what = req.commands[0];
    if (what === 'hold') return 'hold';
    return what === 'fail' ? { exitCode: 3, error: 'exit status 3' } : { exitCode: 0 };
  });
  return {
    launcher: executor,
    request: (what) => ({ commands: [what], identity: { dagName: 'd', dagRunId: 'r', attemptId: 'a', node: `s${n++}`, attempt: 0 } } as unknown as ExecRequest),
    starts: async (req) => executor.starts.filter((s) => s === execName(req.identity)).length,
  };
});

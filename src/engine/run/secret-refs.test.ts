/** A sub-DAG run driven without its caller (taken over after a crash) resolves its callers' secrets again. */
import type { DagRunResource } from '../../core/resources.js';
import type { EngineDeps } from '../deps.js';
import { callerSecrets } from './secret-refs.js';

function run(name: string, params: string, secrets: Array<{ name: string; key: string }>, parent?: string): DagRunResource {
  return {
    spec: {
      dagName: name, dagRunId: `${name}-1`, params, workingDir: '/tmp', localDags: {},
      definition: { name, secrets: secrets.map((s) => ({ ...s, provider: 'env', options: {} })), steps: [] },
      ...(parent ? { parent: { name: parent, dagRunId: `${parent}-1` } } : {}),
    },
    status: { attemptId: 'a1' },
  } as unknown as DagRunResource;
}

const runs = new Map<string, DagRunResource>([
  ['root', run('root', '', [{ name: 'TOKEN', key: 'SRC_ROOT' }, { name: 'OTHER', key: 'SRC_OTHER' }])],
  ['mid', run('mid', 'X=${TOKEN}', [{ name: 'TOKEN', key: 'SRC_MID' }], 'root')],
]);
const deps = {
  store: { get: async (k: { dagName: string }) => runs.get(k.dagName) },
  // The env provider's rule: the value of the variable `key` of the service's environment.
  secrets: { resolve: async (_p: string, key: string, _o: unknown, ctx: { env: Record<string, string> }) => ctx.env[key]! },
  systemEnv: { SRC_ROOT: 'root-value', SRC_OTHER: 'other-value', SRC_MID: 'mid-value' },
  ids: { next: () => 'id-00000001' },
} as unknown as EngineDeps;

describe('callerSecrets', () => {
  it('none for a root run, or params that name none', async () => {
    expect(await callerSecrets(deps, runs.get('root')!)).toEqual([]);
    expect(await callerSecrets(deps, run('leaf', 'X=plain', [], 'mid'))).toEqual([]);
  });

  it("the callers' secrets, nearest first, a nearer one hiding a farther one of its name", async () => {
    expect(await callerSecrets(deps, run('leaf', 'X=${TOKEN} Y=${OTHER}', [], 'mid'))).toEqual([
      { name: 'TOKEN', value: 'mid-value' }, { name: 'OTHER', value: 'other-value' },
    ]);
  });
});

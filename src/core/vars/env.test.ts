import { buildExpansionLookup, buildStepEnv, evaluateEntries, filterSystemEnv, resolveDagEnv } from './env.js';
import type { StepEnvInput } from './env.js';
import type { EnvEntry } from '../spec/types.js';

const e = (obj: Record<string, string>): EnvEntry[] => Object.entries(obj).map(([name, value]) => ({ name, value }));
const run = async (cmd: string): Promise<string> => `ran(${cmd})\n`;

const systemEnv = {
  PATH: '/usr/bin',
  HOME: '/home/svc',
  LANG: 'C.UTF-8',
  TZ: 'UTC',
  SHELL: '/bin/sh',
  USER: 'svc',
  SECRET_TOKEN: 'sys-secret',
  SVC_DATA_DIR: '/data',
  SVC_AUTH_TOKEN_SECRET: 'jwt',
  SVC_S3_BUCKET: 'b',
  SVC_MINE: 'mine',
  LC_ALL: 'C',
  DAG_X: 'dx',
  DAGGER: 'no',
  UNSET: undefined,
};

function input(over: Partial<StepEnvInput> = {}): StepEnvInput {
  return { systemEnv, dotenv: [], dagEnv: [], params: [], outputs: [], builtins: [], secrets: [], stepEnv: [], runCommand: run, ...over };
}

describe('filterSystemEnv', () => {
  it('keeps the whitelist and prefixes only, less svc\'s own settings, dropping undefined', () => {
    expect(filterSystemEnv(systemEnv)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/svc',
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      SHELL: '/bin/sh',
      SVC_MINE: 'mine',
      LC_ALL: 'C',
      DAG_X: 'dx',
    });
  });
});

describe('buildStepEnv precedence', () => {
  // Each layer sets V; the expected winner is the highest layer that sets it.
  const layers: Array<[keyof StepEnvInput, EnvEntry[]]> = [
    ['dagEnv', e({ V: 'dag' })],
    ['dotenv', e({ V: 'dotenv' })],
    ['params', e({ V: 'param' })],
    ['outputs', e({ V: 'output' })],
    ['builtins', e({ V: 'builtin' })],
    ['secrets', e({ V: 'secret' })],
    ['stepEnv', e({ V: 'step' })],
  ];
  it.each(layers.map((_, i) => [layers[i]?.[0], i] as const))('%s wins over every lower layer', async (_name, i) => {
    const over = Object.fromEntries(layers.slice(0, i + 1));
    const env = await buildStepEnv(input(over));
    expect(env.V).toBe((layers[i]?.[1][0] as EnvEntry).value);
  });

  it('DAG env overrides the filtered system env', async () => {
    expect((await buildStepEnv(input({ dagEnv: e({ PATH: '/opt' }) }))).PATH).toBe('/opt');
  });

  it('passes only the filtered system env to the process', async () => {
    const env = await buildStepEnv(input());
    expect(env).toEqual(filterSystemEnv(systemEnv));
    expect(env.SECRET_TOKEN).toBeUndefined();
  });

  it('gives system values precedence over dotenv values, and passes the key through', async () => {
    const env = await buildStepEnv(input({ dotenv: e({ SECRET_TOKEN: 'file', HOME: '/file', NEW: 'file' }) }));
    expect(env).toMatchObject({ SECRET_TOKEN: 'sys-secret', HOME: '/home/svc', NEW: 'file' });
  });

  it('lets later dotenv entries win', async () => {
    expect((await buildStepEnv(input({ dotenv: e({ A: '1' }).concat(e({ A: '2' })) }))).A).toBe('2');
  });
});

describe('buildStepEnv evaluation', () => {
  it.each<[string, Partial<StepEnvInput>, Record<string, string>]>([
    ['DAG env sees earlier entries', { dagEnv: [...e({ A: 'a' }), ...e({ B: '${A}-b' })] }, { A: 'a', B: 'a-b' }],
    ['DAG env sees params and full system env', { params: e({ P: 'p', 1: 'one' }), dagEnv: e({ X: '$P $1 ${SECRET_TOKEN} $USER' }) }, { X: 'p one sys-secret svc' }],
    ['step env sees only what the step gets of the system env', { stepEnv: e({ S: '[${SECRET_TOKEN}] [$USER] [${HOME}]' }) }, { S: '[] [] [/home/svc]' }],
    ['DAG env self-reference extends system value', { dagEnv: e({ PATH: '/opt:${PATH}' }) }, { PATH: '/opt:/usr/bin' }],
    ['DAG env sees dotenv values', { dotenv: e({ D: 'd' }), dagEnv: e({ X: '${D}!' }) }, { X: 'd!' }],
    ['DAG env: unknown vars become empty', { dagEnv: e({ X: '[${NOPE}]' }) }, { X: '[]' }],
    ['DAG env: later entry cannot be used early', { dagEnv: [...e({ A: '${B}' }), ...e({ B: 'b' })] }, { A: '', B: 'b' }],
    ['DAG env backquotes', { dagEnv: e({ D: '`date`' }) }, { D: 'ran(date)' }],
    ['DAG env $$ escape', { dagEnv: e({ X: 'a$$b' }) }, { X: 'a$b' }],
    ['params are literal', { params: e({ P: '${HOME}' }) }, { P: '${HOME}' }],
    [
      'step env sees outputs, secrets, builtins, DAG env',
      {
        dagEnv: e({ D: 'dag' }),
        outputs: e({ OUT: '{"a":[1,{"b":"deep"}]}' }),
        secrets: e({ S: 'shh' }),
        builtins: e({ DAG_NAME: 'demo' }),
        stepEnv: e({ X: '$D ${OUT.a[1].b} $S $DAG_NAME' }),
      },
      { X: 'dag deep shh demo' },
    ],
    ['step env sees earlier step entries', { stepEnv: [...e({ A: '1' }), ...e({ B: '${A}2' })] }, { B: '12' }],
    ['step env self-reference', { dagEnv: e({ V: 'base' }), stepEnv: e({ V: '${V}+step' }) }, { V: 'base+step' }],
    ['step env backquote with variables', { params: e({ N: 'x' }), stepEnv: e({ C: '`echo $N`' }) }, { C: 'ran(echo x)' }],
    ['pre-resolved DAG env is not evaluated again', { dagEnvResolved: true, dagEnv: e({ X: '$literal`x`' }) }, { X: '$literal`x`' }],
  ])('%s', async (_l, over, expected) => {
    expect(await buildStepEnv(input(over))).toMatchObject(expected);
  });

  it('outputs cannot override built-ins', async () => {
    const env = await buildStepEnv(input({ outputs: e({ DAG_RUN_ID: 'fake' }), builtins: e({ DAG_RUN_ID: 'r1' }) }));
    expect(env.DAG_RUN_ID).toBe('r1');
  });
});

describe('resolveDagEnv', () => {
  it('evaluates once, in order', async () => {
    const calls: string[] = [];
    const out = await resolveDagEnv({
      systemEnv,
      dotenv: [],
      params: [],
      dagEnv: [...e({ A: '`one`' }), ...e({ B: '$A`two`' })],
      runCommand: async (c) => {
        calls.push(c);
        return c;
      },
    });
    expect(out).toEqual(e({ A: 'one', B: 'onetwo' }));
    expect(calls).toEqual(['one', 'two']);
  });
});

describe('evaluateEntries', () => {
  it('keeps duplicates in order, the later seeing the earlier', async () => {
    const out = await evaluateEntries([...e({ A: 'x' }), ...e({ A: '${A}y' })], (soFar) => (n) => soFar.get(n), run);
    expect(out).toEqual([...e({ A: 'x' }), ...e({ A: 'xy' })]);
  });
});

describe('buildExpansionLookup', () => {
  const lookup = buildExpansionLookup({ PATH: '/step', ONLY_STEP: 's' });
  it.each([
    ['PATH', '/step'],
    ['ONLY_STEP', 's'],
    // only in the service's environment: not for run-time expansion (SPEC 2.7)
    ['SECRET_TOKEN', undefined],
    ['UNSET', undefined],
    ['NOPE', undefined],
  ])('%s', (name, expected) => {
    expect(lookup(name)).toBe(expected);
  });
});

/** GET /metrics (SPEC 4.1): names, types, labels, buckets; counters move after runs; private vs public. */
import { eventually, TestServer } from '../../helpers/server.js';
import { gatedSteps, openAndStop, openGate } from './gate.js';

const TYPES: Record<string, string> = {
  svc_info: 'gauge', svc_uptime_seconds: 'gauge', svc_scheduler_running: 'gauge', svc_dags_total: 'gauge',
  svc_dag_runs_currently_running: 'gauge', svc_dag_runs_queued_total: 'gauge', svc_dag_runs_total: 'counter',
  svc_dag_runs_currently_running_by_dag: 'gauge', svc_dag_runs_queued_by_dag: 'gauge', svc_dag_runs_total_by_dag: 'counter',
  svc_dag_run_duration_seconds: 'histogram', svc_queue_wait_seconds: 'histogram', svc_cache_entries_total: 'gauge',
  process_cpu_seconds_total: 'counter', nodejs_heap_size_used_bytes: 'gauge', nodejs_eventloop_lag_seconds: 'gauge',
};

/** value of the sample `name{labels}` in an exposition text (labels as written, in order). */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('public metrics', () => {
  let srv: TestServer;
  let token: string;
  const scrape = async () => {
    const r = await srv.get('/metrics');
    expect(r.status).toBe(200);
    return r.text;
  };
  beforeAll(async () => {
    srv = await new TestServer({ SVC_SERVER_METRICS: 'public' }).start();
    srv.dag('ok', 'steps:\n  - command: "true"\n');
    srv.dag('bad', 'steps:\n  - command: "false"\n');
    token = (await srv.post('/dags/ok/webhook')).body.token;
  });
  afterAll(() => openAndStop(srv));
  const fire = (file: string, tok: string, id: string) => srv.req('POST', `/webhooks/${file}`, { dagRunId: id }, { authorization: `Bearer ${tok}` });

  test('every metric of SPEC 4.1 with its type, plus runtime and process metrics', async () => {
    const r = await srv.get('/metrics');
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const [name, type] of Object.entries(TYPES)) expect(r.text).toContain(`# TYPE ${name} ${type}\n`);
  });

  test('labels and values of the gauges', async () => {
    const text = await scrape();
    expect(text).toMatch(new RegExp(`svc_info\\{version="[^"]+",build_date="[^"]+",go_version="${process.version.replace(/\./g, '\\.')}"\\} 1`));
    // On kubernetes the operator runs the schedules, not an API replica.
    expect(sample(text, 'svc_scheduler_running')).toBe(srv.kube ? 0 : 1);
    expect(sample(text, 'svc_dags_total')).toBe(2);
    expect(Number.isInteger(sample(text, 'svc_uptime_seconds'))).toBe(true);
    for (const c of ['dag_definition', 'dag_run_status', 'api_key', 'webhook']) expect(sample(text, 'svc_cache_entries_total', `cache="${c}"`)).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'svc_cache_entries_total', 'cache="webhook"')).toBe(1);
    for (const s of ['succeeded', 'failed', 'aborted', 'running', 'queued', 'not_started', 'partially_succeeded']) {
      expect(sample(text, 'svc_dag_runs_total', `status="${s}"`)).toEqual(expect.any(Number));
    }
  });

  test('histogram buckets are those of the spec', async () => {
    await fire('ok', token, 'bucket-run');
    const text = await eventually(async () => {
      const t = await scrape();
      return sample(t, 'svc_dag_run_duration_seconds_count', 'dag="ok"') ? t : undefined;
    }, 'a duration sample');
    const les = (name: string) => [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)",dag="ok"\\}`, 'gm'))].map((m) => m[1]);
    expect(les('svc_dag_run_duration_seconds')).toEqual(['1', '5', '15', '30', '60', '120', '300', '600', '1800', '3600', '+Inf']);
    expect(text).toContain('# HELP svc_queue_wait_seconds');
  });

  test('counters and histograms move after runs, once per run', async () => {
    const before = await scrape();
    const okCount = sample(before, 'svc_dag_runs_total_by_dag', 'dag="ok",status="succeeded"') ?? 0;
    const badToken = (await srv.post('/dags/bad/webhook')).body.token;
    await fire('ok', token, 'count-1');
    await fire('ok', token, 'count-2');
    await fire('bad', badToken, 'count-3');
    const after = await eventually(async () => {
      const t = await scrape();
      return sample(t, 'svc_dag_runs_total_by_dag', 'dag="bad",status="failed"') === 1
        && sample(t, 'svc_dag_runs_total_by_dag', 'dag="ok",status="succeeded"') === okCount + 2
        // Every run of this server was created today, and only DAG ok succeeded so far.
        && sample(t, 'svc_dag_runs_total', 'status="succeeded"') === okCount + 2
        // The gauges come from a census taken at scrape time, the counters from run events: both caught up.
        && (sample(t, 'svc_dag_runs_total', 'status="failed"') ?? 0) >= 1 ? t : undefined;
    }, 'the runs to be counted');
    expect(sample(after, 'svc_dag_run_duration_seconds_count', 'dag="ok"')).toBe(okCount + 2);
    expect(sample(after, 'svc_dag_runs_currently_running')).toBe(0);
    // A later scrape counts nothing twice.
    expect(sample(await scrape(), 'svc_dag_runs_total_by_dag', 'dag="ok",status="succeeded"')).toBe(okCount + 2);
  });

  test('running gauges follow a running run', async () => {
    srv.dag('slow', gatedSteps(srv));
    const tok = (await srv.post('/dags/slow/webhook')).body.token;
    await fire('slow', tok, 'slow-1');
    const text = await eventually(async () => {
      const t = await scrape();
      return sample(t, 'svc_dag_runs_currently_running') === 1 ? t : undefined;
    }, 'the run to be counted as running');
    expect(sample(text, 'svc_dag_runs_currently_running_by_dag', 'dag="slow"')).toBe(1);
    openGate(srv);
    await eventually(async () => sample(await scrape(), 'svc_dag_runs_currently_running') === 0, 'the run to end');
  });
});

describe('queue metrics', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await new TestServer({ SVC_SERVER_METRICS: 'public' }).start(); });
  afterAll(() => openAndStop(srv));
  const scrape = async () => (await srv.get('/metrics')).text;

  test('queued gauges count a waiting run; the queue wait is observed once it starts', async () => {
    srv.dag('one', `maxActiveRuns: 1\n${gatedSteps(srv)}`);
    expect((await srv.post('/dags/one/start', { dagRunId: 'first' })).status).toBe(200);
    await eventually(async () => (await srv.get('/dag-runs/one/first')).body.dagRun?.status === 1, 'the first run to run');
    expect((await srv.post('/dags/one/enqueue', { dagRunId: 'second' })).status).toBe(200);
    const text = await eventually(async () => {
      const t = await scrape();
      return sample(t, 'svc_dag_runs_queued_total') === 1 ? t : undefined;
    }, 'the queued run to be counted');
    expect(sample(text, 'svc_dag_runs_queued_by_dag', 'dag="one"')).toBe(1);
    expect(sample(text, 'svc_dag_runs_currently_running_by_dag', 'dag="one"')).toBe(1);
    openGate(srv);
    const after = await eventually(async () => {
      const t = await scrape();
      return sample(t, 'svc_queue_wait_seconds_count', 'dag="one"') === 1 && sample(t, 'svc_dag_runs_queued_total') === 0 ? t : undefined;
    }, 'the queued run to start');
    expect(sample(after, 'svc_queue_wait_seconds_bucket', 'le="600",dag="one"')).toBe(1);
    const les = [...after.matchAll(/^svc_queue_wait_seconds_bucket\{le="([^"]+)",dag="one"\}/gm)].map((m) => m[1]);
    expect(les).toEqual(['1', '5', '10', '30', '60', '120', '300', '600', '+Inf']);
  });
});

describe('private metrics', () => {
  test('without any configured credential: 401 with a message saying how to open them', async () => {
    const srv = await new TestServer().start();
    try {
      for (const h of [{}, { authorization: 'Bearer anything' }]) {
        const r = await srv.req('GET', '/metrics', undefined, h);
        expect(r.status).toBe(401);
        expect(r.body).toMatchObject({ code: 'unauthorized', message: expect.stringContaining('SVC_SERVER_METRICS=public') });
        expect(r.headers.get('www-authenticate')).toContain('Bearer');
      }
    } finally {
      await srv.stop();
    }
  });

  test('with a static token or basic credentials: 200 only for a matching credential', async () => {
    const srv = await new TestServer({ SVC_AUTH_TOKEN: 's3cret-token', SVC_AUTH_BASIC_USERNAME: 'prom', SVC_AUTH_BASIC_PASSWORD: 'p4ss:word' }).start();
    const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
    try {
      const cases: [string | undefined, number][] = [
        [undefined, 401], ['Bearer s3cret-token', 200], ['bearer s3cret-token', 200], ['Bearer s3cret-tokeN', 401],
        ['Bearer ', 401], [basic('prom', 'p4ss:word'), 200], [basic('prom', 'p4ss'), 401], [basic('other', 'p4ss:word'), 401],
        ['Basic !!!', 401], ['Token s3cret-token', 401],
      ];
      for (const [auth, status] of cases) {
        const r = await srv.req('GET', '/metrics', undefined, auth === undefined ? {} : { authorization: auth });
        expect([auth, r.status]).toEqual([auth, status]);
        if (status === 401) expect(r.body.code).toBe('unauthorized');
      }
    } finally {
      await srv.stop();
    }
  });
});

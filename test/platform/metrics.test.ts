// GET /metrics: off by default, readable with the configured token or from an allowed address, in the Prometheus text
// format (read back with a maintained parser), and its series follow the traffic; labels stay bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { describeEachEngine, login, startTestApp, type TestApp } from '../helpers/test-app.js';
import { openSse } from '../helpers/sse-client.js';

const TOKEN = 'metrics-token-0123456789';
const KEY = 'k-metrics-owner-0123';
const NOTES_KEY = 'k-metrics-notes-0123';
const USER = { loginName: 'mia', password: 'mia-pass-1' };
const STORE = '/cxf/svc-core/storage/store';
const CONFIG = {
  tenants: [
    {
      name: 'acme',
      users: [{ ...USER, roles: ['OWNER'] }],
      apiKeys: [
        { name: 'owner', key: KEY, roles: ['OWNER', 'FLOW'] },
        { name: 'notes', key: NOTES_KEY, roles: ['NOTIFICATION_ADMIN'] },
      ],
    },
  ],
  identity: { loginThrottle: { maxFailuresPerAccountAndAddress: 3 } },
  flow: { instances: [{ id: 'dead', url: 'http://127.0.0.1:1/base', timeoutSeconds: 5 }] },
};

type Families = Map<string, PrometheusFamily> & { text: string };

/** The value of the one sample line of `name` with exactly `labels`, in any order (0 when there is none). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = (m[2].match(/[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"/g) ?? []).sort().join(',');
    if (got === want) return Number(m[3]);
  }
  return 0;
}

/** The sum of a family's samples whose labels include `labels` (histograms: their counts). */
function total(families: Families, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  if (!family) return 0;
  return family.metrics
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.count ?? m.value), 0);
}

describe('metrics off (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('answers 404 with the error object, as an unknown path', async () => {
    const res = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 404, name: 'NOT_FOUND' });
  });
});

describe('metrics access', () => {
  const cases: Array<{
    name: string;
    metrics: Record<string, unknown>;
    remoteAddress: string;
    authorization?: string;
    status: number;
  }> = [
    {
      name: 'token, sent',
      metrics: { token: TOKEN },
      remoteAddress: '203.0.113.9',
      authorization: `Bearer ${TOKEN}`,
      status: 200,
    },
    {
      name: 'token, lower-case scheme',
      metrics: { token: TOKEN },
      remoteAddress: '203.0.113.9',
      authorization: `bearer ${TOKEN}`,
      status: 200,
    },
    { name: 'token, none sent', metrics: { token: TOKEN }, remoteAddress: '203.0.113.9', status: 401 },
    {
      name: 'token, a wrong one',
      metrics: { token: TOKEN },
      remoteAddress: '203.0.113.9',
      authorization: `Bearer ${TOKEN}x`,
      status: 401,
    },
    {
      name: 'token, as Basic',
      metrics: { token: TOKEN },
      remoteAddress: '203.0.113.9',
      authorization: `Basic ${TOKEN}`,
      status: 401,
    },
    { name: 'range, inside', metrics: { allow: ['10.0.0.0/8'] }, remoteAddress: '10.1.2.3', status: 200 },
    {
      name: 'range, IPv4-mapped peer',
      metrics: { allow: ['10.0.0.0/8'] },
      remoteAddress: '::ffff:10.1.2.3',
      status: 200,
    },
    { name: 'range, outside', metrics: { allow: ['10.0.0.0/8'] }, remoteAddress: '192.168.1.1', status: 403 },
    { name: 'single address', metrics: { allow: ['::1'] }, remoteAddress: '::1', status: 200 },
    {
      name: 'range, outside, token wrong',
      metrics: { allow: ['10.0.0.0/8'], token: TOKEN },
      remoteAddress: '192.168.1.1',
      authorization: 'Bearer nope',
      status: 401,
    },
    {
      name: 'range, inside, token wrong',
      metrics: { allow: ['10.0.0.0/8'], token: TOKEN },
      remoteAddress: '10.9.9.9',
      authorization: 'Bearer nope',
      status: 200,
    },
    {
      name: 'nothing configured',
      metrics: {},
      remoteAddress: '127.0.0.1',
      authorization: `Bearer ${TOKEN}`,
      status: 403,
    },
    {
      name: 'a forwarded address is not the peer',
      metrics: { allow: ['10.0.0.0/8'] },
      remoteAddress: '192.168.1.1',
      status: 403,
    },
  ];
  const apps = new Map<string, TestApp>();
  afterAll(async () => {
    for (const t of apps.values()) await t.close();
  });

  for (const c of cases) {
    it(`${c.name}: ${c.status}`, async () => {
      const key = JSON.stringify(c.metrics);
      let t = apps.get(key);
      if (!t) {
        t = await startTestApp('sqlite', { metrics: { enabled: true, ...c.metrics }, server: { trustProxy: true } });
        apps.set(key, t);
      }
      const headers: Record<string, string> = { 'x-forwarded-for': '10.1.1.1' };
      if (c.authorization) headers.authorization = c.authorization;
      const res = await t.request({ method: 'GET', url: '/metrics', remoteAddress: c.remoteAddress, headers });
      expect(res.statusCode).toBe(c.status);
      if (c.status === 200) {
        expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
        expect(res.body).toContain('# TYPE svc_http_requests_total counter');
      } else {
        expect(res.json().error).toMatchObject({ code: c.status });
        if (c.status === 401) expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      }
    });
  }

  it('refuses to start with an allow entry that is no address', async () => {
    await expect(startTestApp('sqlite', { metrics: { enabled: true, allow: ['10.0.0.0/33'] } })).rejects.toThrow(
      /metrics\.allow: 10\.0\.0\.0\/33/,
    );
  });
});

describeEachEngine('metrics follow the traffic', (engine) => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp(engine, { ...CONFIG, metrics: { enabled: true, token: TOKEN } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  afterAll(() => t.close());

  async function scrape(): Promise<Families> {
    const res = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    return Object.assign(new Map(parsePrometheusTextFormat(res.body).map((f) => [f.name, f])), { text: res.body });
  }
  const key = { 'x-apikey': KEY };

  it('counts requests by method, route pattern and status class, with their durations', async () => {
    const before = await scrape();
    const s = await login(t, 'acme', USER.loginName, USER.password);
    const put = await t.request({
      method: 'PUT',
      url: `${STORE}/notes/a1`,
      headers: key,
      payload: {
        value: 1,
        readRestriction: { roles: ['OWNER'] },
        writeRestriction: { roles: ['OWNER'] },
      },
    });
    expect(put.statusCode).toBe(200);
    for (let i = 0; i < 3; i++) {
      const check = await t.request({
        method: 'GET',
        url: '/cxf/svc-core/authentication',
        headers: { cookie: s.cookie },
      });
      expect(check.statusCode).toBe(200);
      const read = await t.request({ method: 'GET', url: `${STORE}/notes/a1`, headers: key });
      expect(read.statusCode).toBe(200);
    }
    const missing = await t.request({ method: 'GET', url: `${STORE}/notes/nope`, headers: key });
    expect(missing.statusCode).toBe(404);
    await t.request({ method: 'GET', url: '/no/such/path' });

    const after = await scrape();
    const item = { method: 'GET', route: '/cxf/svc-core/storage/store/:storeId/:itemId' };
    const d = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(d('svc_http_requests_total', { ...item, status_class: '2xx' })).toBe(3);
    expect(d('svc_http_requests_total', { ...item, status_class: '4xx' })).toBe(1);
    expect(d('svc_http_requests_total', { method: 'GET', route: 'unmatched', status_class: '4xx' })).toBe(1);
    const histogram = after.get('svc_http_request_duration_seconds')!;
    expect(histogram.type).toBe('HISTOGRAM');
    // The parser folds a histogram's labelled series into one (it knows unlabelled histograms only): its series are
    // read from the text, each line checked by the parser's counter reading of the same labels above.
    const count = (f: Families, le?: string) =>
      sample(f.text, `svc_http_request_duration_seconds_${le ? 'bucket' : 'count'}`, {
        ...item,
        status_class: '2xx',
        ...(le ? { le } : {}),
      });
    expect(count(after) - count(before)).toBe(3);
    expect(count(after, '+Inf')).toBe(count(after));
    expect(count(after, '10')).toBe(count(after));
    expect(
      sample(after.text, 'svc_http_request_duration_seconds_sum', { ...item, status_class: '2xx' }),
    ).toBeGreaterThan(0);
    const checks = { method: 'GET', route: '/cxf/svc-core/authentication', status_class: '2xx' };
    expect(d('svc_http_requests_total', checks)).toBe(3);
  });

  it('shows the process, the database and the change feed', async () => {
    const families = await scrape();
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('COUNTER');
    expect(families.get('nodejs_eventloop_lag_seconds')?.type).toBe('GAUGE');
    if (engine === 'postgres') {
      expect(total(families, 'svc_db_pool_connections')).toBeGreaterThan(0);
      expect(families.get('svc_db_pool_in_use')?.type).toBe('GAUGE');
      expect(families.get('svc_db_pool_waiting')?.type).toBe('GAUGE');
      // Requests before this one ran prepared statements (credential lookups): some prepared, some run again.
      expect(total(families, 'svc_db_prepared_statement_prepares_total')).toBeGreaterThan(0);
      expect(total(families, 'svc_db_prepared_statement_hits_total')).toBeGreaterThan(0);
      expect(families.get('svc_db_prepared_statement_evictions_total')?.type).toBe('COUNTER');
      expect(families.has('svc_sqlite_reader_queue')).toBe(false);
    } else {
      expect(families.get('svc_sqlite_reader_queue')?.type).toBe('GAUGE');
      expect(families.get('svc_sqlite_writer_queue')?.type).toBe('GAUGE');
      expect(families.has('svc_db_pool_in_use')).toBe(false);
      expect(families.has('svc_db_prepared_statement_hits_total')).toBe(false);
    }
    const state = engine === 'postgres' ? 'connected' : 'local';
    expect(total(families, 'svc_change_feed_listener', { state })).toBe(1);
    expect(total(families, 'svc_change_feed_listener', { state: 'off' })).toBe(0);
  });

  it('counts open notification streams and delivered feed events', async () => {
    const before = await scrape();
    const sse = await openSse(`${base}/cxf/svc-core/notification/stream`, { 'x-apikey': NOTES_KEY });
    expect(sse.status).toBe(200);
    const added = await t.request({
      method: 'POST',
      url: '/cxf/svc-core/notification',
      headers: { 'x-apikey': NOTES_KEY },
      payload: { subject: 'metrics', recipientsType: 'role', recipients: ['NOTIFICATION_ADMIN'] },
    });
    expect(added.statusCode).toBe(200);
    await sse.waitFor(1, 'notification');
    const during = await scrape();
    expect(total(during, 'svc_sse_clients', { stream: 'notifications' })).toBe(1);
    const delivered = (f: Families) => total(f, 'svc_change_feed_events_delivered_total');
    expect(delivered(during)).toBeGreaterThan(delivered(before));
    expect(total(during, 'svc_change_feed_lag_seconds_total')).toBeGreaterThanOrEqual(0);
    sse.close();
    await sse.closed;
    // The server sees the close a moment after the client; wait for it rather than for a fixed time.
    for (let i = 0; i < 200 && total(await scrape(), 'svc_sse_clients', { stream: 'notifications' }) !== 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    const after = await scrape();
    expect(total(after, 'svc_sse_clients', { stream: 'notifications' })).toBe(0);
    // The stream answers on the raw response (no onResponse hook): it is counted when it closes.
    const stream = { method: 'GET', route: '/cxf/svc-core/notification/stream', status_class: '2xx' };
    expect(total(after, 'svc_http_requests_total', stream) - total(before, 'svc_http_requests_total', stream)).toBe(1);
  });

  it('counts flow upstream errors by instance, and no call stays in flight', async () => {
    const before = await scrape();
    const res = await t.request({ method: 'GET', url: '/cxf/svc-flow/flow/dead/x', headers: key });
    expect(res.statusCode).toBe(502);
    const after = await scrape();
    expect(
      total(after, 'svc_flow_upstream_errors_total', { instance: 'dead' }) -
        total(before, 'svc_flow_upstream_errors_total', { instance: 'dead' }),
    ).toBe(1);
    expect(total(after, 'svc_flow_streams_in_flight', { instance: 'dead' })).toBe(0);
  });

  it('counts login failures and lockouts', async () => {
    const before = await scrape();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await t.request({
        method: 'POST',
        url: '/cxf/svc-core/authentication',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ tenantname: 'acme', username: 'mia', password: `wrong-${i}` }).toString(),
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    const after = await scrape();
    const d = (name: string) => total(after, name) - total(before, name);
    expect(d('svc_login_failures_total')).toBe(3);
    expect(d('svc_login_lockouts_total')).toBe(1);
    expect(d('svc_password_verifications_total')).toBe(3);
  });

  it('keeps label values bounded after requests to 1,000 distinct item ids', async () => {
    const seriesBefore = (await scrape()).get('svc_http_requests_total')!.metrics.length;
    for (let i = 0; i < 1000; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          t.request({ method: 'GET', url: `${STORE}/notes/distinct-${i + j}`, headers: key }),
        ),
      );
    const families = await scrape();
    const requests = families.get('svc_http_requests_total')!.metrics;
    // At most the one series those reads add (404s on the item route), whatever the ids.
    expect(requests.length - seriesBefore).toBeLessThanOrEqual(1);
    let series = 0;
    for (const f of families.values()) {
      for (const m of f.metrics) {
        series++;
        for (const v of Object.values(m.labels ?? {})) expect(v).not.toMatch(/distinct-/);
      }
    }
    expect(series).toBeLessThan(500);
  });
});

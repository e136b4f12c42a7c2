// GET /cxf/svc-flow/instances on both engines, against a real upstream on loopback and an address nobody listens
// on: reachability from a cached, shared probe, the proxy's last upstream errors per tenant, and who may read it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, login, sessionHeaders, startTestApp, type TestApp } from '../helpers/test-app.js';
import { startUpstream, type Upstream } from './upstream.js';

const ADMIN_KEY = 'k-flow-instances-admin-01';
const READER_KEY = 'k-flow-instances-reader-01';
const PLAIN_KEY = 'k-flow-instances-plain-001';
const OTHER_ADMIN_KEY = 'k-flow-instances-other-01';
const URL_ = '/cxf/svc-flow/instances';

describeEachEngine('flow instances: reachability and last errors', (engine) => {
  let t: TestApp;
  let upstream: Upstream;

  beforeAll(async () => {
    upstream = await startUpstream();
    t = await startTestApp(engine, {
      tenants: [
        {
          name: 'acme',
          users: [{ loginName: 'ada', password: 'ada-password-1', roles: ['ADMIN'] }],
          apiKeys: [
            { name: 'admin', key: ADMIN_KEY, roles: ['ADMIN'] },
            { name: 'reader', key: READER_KEY, roles: ['USER'], rights: ['FLOW_INSTANCES_READ'] },
            { name: 'plain', key: PLAIN_KEY, roles: ['USER', 'TENANT_ADMIN'] },
          ],
        },
        { name: 'other', apiKeys: [{ name: 'admin', key: OTHER_ADMIN_KEY, roles: ['ADMIN'] }] },
      ],
      flow: {
        instances: [
          { id: 'main', url: `${upstream.url}/base`, auth: { type: 'bearer', token: 'instance-token' } },
          { id: 'dead', url: 'http://engine-user:secret@127.0.0.1:1/base' },
        ],
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });

  const read = (headers: Record<string, string>) => t.request({ method: 'GET', url: URL_, headers });
  const byId = (body: any, id: string) => body.instances.find((i: any) => i.id === id);

  it('lists the instances in config order, the live one reachable and the dead one not, without credentials', async () => {
    const res = await read({ 'x-apikey': ADMIN_KEY });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.instances.map((i: any) => i.id)).toEqual(['main', 'dead']);
    expect(byId(body, 'main')).toMatchObject({ origin: upstream.url, reachable: true, probeStatus: 200 });
    expect(byId(body, 'dead')).toMatchObject({ origin: 'http://127.0.0.1:1', reachable: false });
    expect(byId(body, 'dead').probeError).toBe('ECONNREFUSED');
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('/base');
    // The probe was a HEAD of the instance URL with the instance's own credentials.
    const probe = upstream.seen.filter((s) => s.method === 'HEAD');
    expect(probe.length).toBe(1);
    expect(probe[0]).toMatchObject({ url: '/base', headers: { authorization: 'Bearer instance-token' } });
  });

  it('reuses a probe for a few seconds: many reads, one HEAD on the instance', async () => {
    const before = upstream.seen.filter((s) => s.method === 'HEAD').length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => read({ 'x-apikey': READER_KEY })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    // At most one new probe (the first read's one may have expired by now); never one per read.
    expect(upstream.seen.filter((s) => s.method === 'HEAD').length - before).toBeLessThanOrEqual(1);
    // The reads show the cached probe, or the one new probe that replaced it when it expired meanwhile.
    expect(new Set(answers.map((a) => byId(a.json(), 'main').checkedAt)).size).toBeLessThanOrEqual(2);
  });

  it("shows the proxy's failed calls, newest first, to the tenant whose callers made them", async () => {
    const dead = await t.request({
      method: 'POST',
      url: '/cxf/svc-flow/flow/dead/engine-rest/task?secret=1',
      headers: { 'x-apikey': PLAIN_KEY, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(dead.statusCode).toBe(502);
    const five = await t.request({
      method: 'GET',
      url: '/cxf/svc-flow/flow/main/status/503',
      headers: { 'x-apikey': PLAIN_KEY },
    });
    expect(five.statusCode).toBe(503);
    const fine = await t.request({
      method: 'GET',
      url: '/cxf/svc-flow/flow/main/status/404',
      headers: { 'x-apikey': PLAIN_KEY },
    });
    expect(fine.statusCode).toBe(404);

    const body = (await read({ 'x-apikey': ADMIN_KEY })).json();
    expect(byId(body, 'dead').lastErrors).toEqual([
      { at: expect.any(String), method: 'POST', path: '/base/engine-rest/task', status: 502, error: 'ECONNREFUSED' },
    ]);
    // The instance's own 5xx counts, its 4xx is the caller's business.
    expect(byId(body, 'main').lastErrors).toEqual([
      { at: expect.any(String), method: 'GET', path: '/base/status/503', status: 503 },
    ]);
    // Another tenant's administrator sees the instances, not these calls.
    const other = (await read({ 'x-apikey': OTHER_ADMIN_KEY })).json();
    expect(other.instances.map((i: any) => i.lastErrors)).toEqual([[], []]);
  });

  it('keeps the newest errors only, newest first', async () => {
    for (let i = 0; i < 25; i++) {
      const res = await t.request({
        method: 'GET',
        url: `/cxf/svc-flow/flow/dead/n/${i}`,
        headers: { 'x-apikey': PLAIN_KEY },
      });
      expect(res.statusCode).toBe(502);
    }
    const errors = byId((await read({ 'x-apikey': ADMIN_KEY })).json(), 'dead').lastErrors;
    expect(errors.length).toBe(20);
    expect(errors[0].path).toBe('/base/n/24');
    expect(errors[19].path).toBe('/base/n/5');
  });

  it('answers a session of an ADMIN, refuses callers without the role or right (403) and without credentials (401)', async () => {
    const session = await login(t, 'acme', 'ada', 'ada-password-1');
    expect((await read(sessionHeaders(session, false))).statusCode).toBe(200);
    const refused = await read({ 'x-apikey': PLAIN_KEY });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.messageKey).toBe('CORE_ERROR_FORBIDDEN');
    const anonymous = await read({});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe(540);
  });
});

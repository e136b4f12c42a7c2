import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_PASSWORD, describeEachEngine, login, startTestApp, type TestApp } from '../helpers/test-app.js';

// GET /audit narrowed by time range, actor, action and outcome (the console's audit page filters through these).
describeEachEngine('audit filters', (engine) => {
  let t: TestApp;
  let cookie: string;
  const base = Date.parse('2026-01-10T12:00:00.000Z');
  const HOUR = 3_600_000;

  beforeAll(async () => {
    t = await startTestApp(engine);
    cookie = (await login(t, 'default', 'admin', ADMIN_PASSWORD)).cookie;
    const { db, dialect } = t.database;
    const tenant = await db.selectFrom('tenants').select('id').where('name', '=', 'default').executeTakeFirstOrThrow();
    const row = (id: string, hours: number, actor: string, action: string, outcome: string) => ({
      id,
      tenant_id: tenant.id,
      at: base + hours * HOUR,
      actor,
      action,
      outcome,
      remote_address: '127.0.0.1',
      user_agent: 'test',
      detail: dialect.toJson({}),
    });
    await db
      .insertInto('audit_log')
      .values([
        row('f-1', 0, 'ann', 'login', 'success'),
        row('f-2', 1, 'ann', 'login', 'failure'),
        row('f-3', 2, 'ben', 'login', 'failure'),
        row('f-4', 3, 'ben', 'logout', 'success'),
        row('f-5', 4, 'ann', 'token.mint', 'success'),
      ])
      .execute();
  });
  afterAll(() => t.close());

  const ids = async (query: string) => {
    const res = await t.request({ method: 'GET', url: `/cxf/svc-core/audit?${query}`, headers: { cookie } });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { total: number; items: Array<{ id: string }> };
    return { total: body.total, ids: body.items.map((i) => i.id) };
  };

  it('narrows by time range, actor, action and outcome, newest first, with the matching total', async () => {
    const range = `from=${new Date(base + HOUR).toISOString()}&to=${new Date(base + 4 * HOUR).toISOString()}`;
    expect(await ids(range)).toEqual({ total: 3, ids: ['f-4', 'f-3', 'f-2'] });
    expect(await ids('actor=ann')).toEqual({ total: 3, ids: ['f-5', 'f-2', 'f-1'] });
    expect(await ids('actor=ann&outcome=failure')).toEqual({ total: 1, ids: ['f-2'] });
    expect(await ids('action=login&outcome=failure')).toEqual({ total: 2, ids: ['f-3', 'f-2'] });
    expect(await ids(`action=login&outcome=failure&${range}&start=1&limit=1`)).toEqual({ total: 2, ids: ['f-2'] });
    expect(await ids('actor=nobody')).toEqual({ total: 0, ids: [] });
  });

  it('refuses a malformed time or outcome with the error object', async () => {
    for (const query of ['from=yesterday', 'to=2026-13-40T00:00:00Z', 'outcome=maybe', 'actor=']) {
      const res = await t.request({ method: 'GET', url: `/cxf/svc-core/audit?${query}`, headers: { cookie } });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.messageKey, query).toBe('CORE_ERROR_VALIDATION_FAILED');
    }
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import { AuditRepository } from '../../src/modules/identity/audit/audit.repository.js';
import { AuditService } from '../../src/modules/identity/audit/audit.service.js';
import { describeEachEngine, login, startTestApp, type TestApp, ADMIN_PASSWORD } from '../helpers/test-app.js';

const DAY = 86_400_000;

// Audit records older than identity.auditRetentionDays are deleted by the periodic purge; the rest stay visible.
describeEachEngine('audit retention', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t.close());

  it('deletes the records older than the retention and keeps the others', async () => {
    await login(t, 'default', 'admin', ADMIN_PASSWORD); // a fresh record, through the API
    const { db, dialect } = t.database;
    const tenant = await db.selectFrom('tenants').select('id').where('name', '=', 'default').executeTakeFirstOrThrow();
    const now = Date.now();
    const row = (id: string, ageDays: number) => ({
      id,
      tenant_id: tenant.id,
      at: now - ageDays * DAY,
      actor: 'old-actor',
      action: 'login',
      outcome: 'success',
      remote_address: '127.0.0.1',
      user_agent: 'test',
      detail: dialect.toJson({}),
    });
    await db
      .insertInto('audit_log')
      .values([row('a-100-days', 100), row('a-91-days', 91), row('a-89-days', 89)])
      .execute();

    const audit = new AuditService(new AuditRepository(db, dialect), t.app.log);
    expect(await audit.purge(0, now)).toBe(0); // 0 keeps everything
    expect(await audit.purge(90, now)).toBe(2);

    const res = await t.request({
      method: 'GET',
      url: '/cxf/svc-core/audit?limit=100',
      headers: await adminHeaders(t),
    });
    expect(res.statusCode).toBe(200);
    const ids = res.json().items.map((i: { id: string }) => i.id);
    expect(ids).toContain('a-89-days');
    expect(ids).not.toContain('a-91-days');
    expect(ids).not.toContain('a-100-days');
    expect(
      res.json().items.some((i: { actor: string; action: string }) => i.actor === 'admin' && i.action === 'login'),
    ).toBe(true);
  });
});

async function adminHeaders(t: TestApp): Promise<Record<string, string>> {
  const s = await login(t, 'default', 'admin', ADMIN_PASSWORD);
  return { cookie: s.cookie };
}

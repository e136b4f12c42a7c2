// API-key use lands in the audit log once per key and client address per interval (10 minutes), not on every call.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, login, startTestApp, type TestApp } from '../helpers/test-app.js';

const ROBOT = 'k-key-use-robot-123456';
const PRINTER = 'k-key-use-printer-123456';
const CONFIG = {
  tenants: [
    {
      name: 'acme',
      users: [{ loginName: 'root', password: 'root-pw', roles: ['ADMIN'] }],
      apiKeys: [
        { name: 'robot', key: ROBOT },
        { name: 'printer', key: PRINTER },
      ],
    },
  ],
};
const PRINCIPAL = '/cxf/svc-core/authentication/principal';

describeEachEngine('API-key use in the audit log', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, CONFIG);
  });
  afterAll(() => t.close());

  const call = async (key: string, remoteAddress: string) => {
    const res = await t.app.inject({ method: 'GET', url: PRINCIPAL, headers: { 'x-apikey': key }, remoteAddress });
    expect(res.statusCode).toBe(200);
  };

  it('records each key once per client address, however often it calls', async () => {
    for (const [key, address] of [
      [ROBOT, '127.0.0.1'],
      [ROBOT, '127.0.0.1'],
      [ROBOT, '10.0.0.2'],
      [PRINTER, '127.0.0.1'],
      [ROBOT, '10.0.0.2'],
      [PRINTER, '127.0.0.1'],
      [ROBOT, '127.0.0.1'],
    ])
      await call(key, address);
    const root = await login(t, 'acme', 'root', 'root-pw');
    const uses = async () => {
      const res = await t.request({
        method: 'GET',
        url: '/cxf/svc-core/audit?limit=100',
        headers: { cookie: root.cookie },
      });
      expect(res.statusCode).toBe(200);
      return (res.json().items as Array<{ action: string; outcome: string; actor: string; remoteAddress: string }>)
        .filter((i) => i.action === 'apikey.use')
        .map((i) => `${i.outcome} ${i.actor} ${i.remoteAddress}`)
        .sort();
    };
    const expected = ['success printer 127.0.0.1', 'success robot 10.0.0.2', 'success robot 127.0.0.1'];
    // The records are written after the answers: wait for them, then make sure no more follow.
    for (let i = 0; i < 100 && (await uses()).length < expected.length; i++)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    expect(await uses()).toEqual(expected);
  });
});

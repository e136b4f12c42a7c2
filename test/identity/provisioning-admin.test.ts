import { afterEach, expect, inject, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import {
  createProcessDatabase,
  makeWorkDir,
  startServiceProcess,
  type ServiceProcess,
} from '../helpers/service-process.js';

const FORM = 'application/x-www-form-urlencoded';
const ROBOT_KEY = 'k-provisioned-robot-123456';

/**
 * The config file and HTTP administration agree across a real restart of the built service: the file re-applies only
 * what changed in it since the start before (docs/operations.md, "Provisioning and administration").
 */
describeEachEngine('provisioning and HTTP administration across restarts', (engine) => {
  const cleanups: Array<() => unknown> = [];
  let svc: ServiceProcess | undefined;
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function loginAt(base: string, tenantname: string, username: string, password: string) {
    const res = await fetch(`${base}/cxf/svc-core/authentication`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams({ tenantname, username, password }).toString(),
    });
    if (res.status !== 200) return { status: res.status, headers: {} as Record<string, string>, record: undefined };
    const record = (await res.json()) as { principals: Record<string, string[]> };
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
    return { status: 200, record, headers: { cookie, 'x-csrf-token': record.principals['X-Csrf-Token'][0] } };
  }

  it('keeps HTTP changes of a provisioned user and key over a restart; re-applies only fields changed in the file', async () => {
    const work = makeWorkDir();
    cleanups.push(() => work.cleanup());
    let env: Record<string, string> = {};
    if (engine === 'postgres') {
      const database = await createProcessDatabase(inject('pgUrl'));
      cleanups.push(() => database.drop());
      env = { DATABASE_URL: database.url };
    }
    const config = (aliceEmail: string) => ({
      identity: { bootstrapAdminPassword: 'boot-pw-123' },
      tenants: [
        {
          name: 'acme',
          users: [
            { loginName: 'boss', password: 'boss-pw-123', roles: ['TENANT_ADMIN'] },
            // roles and organisations are not stated for alice: the file must not empty them.
            { loginName: 'alice', password: 'alice-pw-123', email: aliceEmail, firstName: 'Alice' },
            { loginName: 'bob', password: 'bob-pw-1234' },
          ],
          apiKeys: [{ name: 'robot', key: ROBOT_KEY, roles: ['R1'] }],
        },
      ],
    });

    svc = await startServiceProcess({ config: config('a@example.com'), workDir: work.dir, env });
    let base = svc.url;
    let boss = await loginAt(base, 'acme', 'boss', 'boss-pw-123');
    const admin = (method: string, url: string, body?: unknown) =>
      fetch(`${base}/cxf/svc-core/admin${url}`, {
        method,
        headers: { ...boss.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    expect(
      (await admin('PATCH', '/users/alice', { firstName: 'Alicia', roles: ['EDITOR'], organisations: ['o1'] })).status,
    ).toBe(200);
    expect((await admin('PUT', '/users/alice/password', { password: 'alice-http-pw' })).status).toBe(200);
    expect((await admin('DELETE', '/users/bob')).status).toBe(200);
    expect((await admin('DELETE', '/api-keys/robot')).status).toBe(200);
    await svc.stop();

    // Same file: nothing it states changed, so nothing is re-applied; bob and robot stay deleted.
    svc = await startServiceProcess({ config: config('a@example.com'), workDir: work.dir, env });
    base = svc.url;
    boss = await loginAt(base, 'acme', 'boss', 'boss-pw-123');
    let alice = await (await admin('GET', '/users/alice')).json();
    expect(alice).toMatchObject({
      firstName: 'Alicia',
      roles: ['EDITOR'],
      organisations: ['o1'],
      email: 'a@example.com',
    });
    expect((await loginAt(base, 'acme', 'alice', 'alice-http-pw')).status).toBe(200);
    expect((await loginAt(base, 'acme', 'alice', 'alice-pw-123')).status).toBe(401);
    expect((await admin('GET', '/users/bob')).status).toBe(404);
    const robot = await fetch(`${base}/cxf/svc-core/authentication/principal`, { headers: { 'x-apikey': ROBOT_KEY } });
    expect(robot.status).toBe(401);
    await svc.stop();

    // The file changes alice's e-mail: that field (only) is applied; the HTTP changes of the others stay.
    svc = await startServiceProcess({ config: config('alice@example.com'), workDir: work.dir, env });
    base = svc.url;
    boss = await loginAt(base, 'acme', 'boss', 'boss-pw-123');
    alice = await (await admin('GET', '/users/alice')).json();
    expect(alice).toMatchObject({
      email: 'alice@example.com',
      firstName: 'Alicia',
      roles: ['EDITOR'],
      organisations: ['o1'],
    });
    expect((await loginAt(base, 'acme', 'alice', 'alice-http-pw')).status).toBe(200);
    expect((await admin('GET', '/users/bob')).status).toBe(404);
  }, 300_000);
});

// Several instances on one PostgreSQL, as a scaled-out deployment runs them: three real service processes behind
// no load balancer, each called directly. What users of a cluster rely on must hold whichever instance they reach.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createProcessDatabase,
  makeWorkDir,
  startServiceProcess,
  type ServiceProcess,
} from '../helpers/service-process.js';
import { openSse } from '../helpers/sse-client.js';
import { pgbouncerBinary, reportMissingPgBouncer, startPgBouncer } from '../helpers/pgbouncer.js';

const WRITER_KEY = 'k-cluster-writer-0123';
const ADMIN_KEY = 'k-cluster-admin-0123';
const ALICE = { loginName: 'alice', password: 'alice-pass-1' };
const BOB = { loginName: 'bob', password: 'bob-pass-1' };
const CAROL = { loginName: 'carol', password: 'carol-pass-1' };
const CONFIG = {
  identity: { bootstrapAdminPassword: 'admin-pass-1', loginThrottle: { maxFailuresPerUser: 5 } },
  tenants: [
    {
      name: 'acme',
      users: [
        { ...ALICE, roles: ['OWNER'] },
        { ...BOB, roles: ['OWNER'] },
        { ...CAROL, roles: ['OWNER'] },
      ],
      apiKeys: [
        { name: 'writer', key: WRITER_KEY, roles: ['OWNER', 'FORMS_ADMIN', 'NOTIFICATION_ADMIN'] },
        { name: 'admin', key: ADMIN_KEY, roles: ['ADMIN'] },
      ],
    },
  ],
};
const restriction = { roles: ['OWNER'] };
const STORE = '/cxf/svc-core/storage/store';

interface Session {
  cookie: string;
  csrf: string;
}

const pgUrl = inject('pgUrl');

(pgUrl ? describe : describe.skip)('three instances on one PostgreSQL', () => clusterSuite('direct'));

// Once more behind a real PgBouncer in transaction pooling mode (PgBouncer 1.18 of Debian here, which keeps no named
// prepared statements): DATABASE_URL through it, DATABASE_DIRECT_URL for LISTEN and migrations.
const bouncer = pgUrl && pgbouncerBinary();
if (pgUrl && !bouncer) reportMissingPgBouncer('the cluster tests behind PgBouncer');
(bouncer ? describe : describe.skip)('three instances on one PostgreSQL behind PgBouncer (transaction pooling)', () =>
  clusterSuite('pgbouncer'),
);

function clusterSuite(route: 'direct' | 'pgbouncer'): void {
  const instances: ServiceProcess[] = [];
  const cleanups: Array<() => unknown> = [];
  const url = (i: number) => instances[i % instances.length].url;

  beforeAll(async () => {
    const work = makeWorkDir();
    cleanups.push(() => work.cleanup());
    const database = await createProcessDatabase(pgUrl);
    cleanups.push(() => database.drop());
    let env = { DATABASE_URL: database.url };
    let config: Record<string, unknown> = CONFIG;
    if (route === 'pgbouncer') {
      const pgbouncer = await startPgBouncer(pgUrl);
      // Stopped before the database is dropped (cleanups run in reverse), after the instances.
      cleanups.push(() => pgbouncer.stop());
      env = { DATABASE_URL: pgbouncer.through(database.url), DATABASE_DIRECT_URL: database.url } as typeof env;
      config = { ...CONFIG, database: { pooler: 'transaction' } };
    }
    // The first one migrates and provisions; the others start on the migrated database at the same time.
    instances.push(await startServiceProcess({ config, workDir: work.dir, env }));
    instances.push(...(await Promise.all([1, 2].map(() => startServiceProcess({ config, workDir: work.dir, env })))));
  });

  afterAll(async () => {
    await Promise.all(instances.map((s) => s.kill()));
    for (const c of cleanups.reverse()) await c();
  });

  const withKey = (key: string, body?: unknown): RequestInit => ({
    headers: { 'x-apikey': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

  async function call(i: number, method: string, path: string, init: RequestInit = withKey(WRITER_KEY)) {
    const res = await fetch(`${url(i)}${path}`, { method, ...init });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  async function login(
    i: number,
    user: { loginName: string; password: string },
  ): Promise<{ status: number; session?: Session }> {
    const res = await fetch(`${url(i)}/cxf/svc-core/authentication`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tenantname: 'acme', username: user.loginName, password: user.password }).toString(),
    });
    const body = (await res.json()) as { principals: Record<string, string[]> };
    if (res.status !== 200) return { status: res.status };
    return {
      status: 200,
      session: { cookie: res.headers.get('set-cookie')!.split(';')[0], csrf: body.principals['X-Csrf-Token'][0] },
    };
  }

  const sessionCheck = async (i: number, s: Session) =>
    (await fetch(`${url(i)}/cxf/svc-core/authentication`, { headers: { cookie: s.cookie } })).status;

  it('a write on one instance is read on the others at once', async () => {
    const created = await call(
      0,
      'POST',
      `${STORE}/shared`,
      withKey(WRITER_KEY, { value: { v: 1 }, readRestriction: restriction, writeRestriction: restriction }),
    );
    expect(created.status).toBe(200);
    const id = created.body.id;
    for (const i of [1, 2]) expect((await call(i, 'GET', `${STORE}/shared/${id}`)).body.value).toEqual({ v: 1 });

    expect(
      (
        await call(
          1,
          'PUT',
          `${STORE}/shared/${id}`,
          withKey(WRITER_KEY, { value: { v: 2 }, readRestriction: restriction, writeRestriction: restriction }),
        )
      ).status,
    ).toBe(200);
    for (const i of [0, 2]) expect((await call(i, 'GET', `${STORE}/shared/${id}`)).body.value).toEqual({ v: 2 });

    expect((await call(2, 'DELETE', `${STORE}/shared/${id}`)).status).toBe(200);
    for (const i of [0, 1]) expect((await call(i, 'GET', `${STORE}/shared/${id}`)).status).toBe(404);

    const form = await call(
      2,
      'POST',
      '/cxf/svc-forms/forms/cluster-form',
      withKey(WRITER_KEY, { name: 'Made on C', config: { configuration: {}, components: [] } }),
    );
    expect(form.status).toBe(200);
    for (const i of [0, 1])
      expect((await call(i, 'GET', '/cxf/svc-forms/forms/cluster-form')).body.name).toBe('Made on C');
  });

  it('a logout on one instance is refused on the others at once', async () => {
    const { session } = await login(0, ALICE);
    // Each instance has checked (and may have cached) the session before the logout.
    for (const i of [0, 1, 2]) expect(await sessionCheck(i, session!)).toBe(200);
    const out = await fetch(`${url(1)}/cxf/svc-core/authentication`, {
      method: 'DELETE',
      headers: { cookie: session!.cookie, 'x-csrf-token': session!.csrf },
    });
    expect(out.status).toBe(200);
    for (const i of [0, 1, 2]) expect(await sessionCheck(i, session!)).toBe(401);
    const read = await fetch(`${url(2)}${STORE}/shared`, { headers: { cookie: session!.cookie } });
    expect(read.status).toBe(401);
  });

  it('"end all sessions" on one instance is refused on the others at once', async () => {
    const sessions = [(await login(0, BOB)).session!, (await login(1, BOB)).session!, (await login(2, ALICE)).session!];
    for (const s of sessions) for (const i of [0, 1, 2]) expect(await sessionCheck(i, s)).toBe(200);
    const ended = await call(2, 'DELETE', '/cxf/svc-core/authentication/sessions/all', withKey(ADMIN_KEY));
    expect(ended.status).toBe(200);
    expect(ended.body.deleted).toBeGreaterThanOrEqual(3);
    for (const s of sessions) for (const i of [0, 1, 2]) expect(await sessionCheck(i, s)).toBe(401);
  });

  it('concurrent creates and form versions across instances never collide', async () => {
    const perInstance = 40;
    const creates = await Promise.all(
      Array.from({ length: perInstance * 3 }, (_, n) =>
        call(
          n % 3,
          'POST',
          `${STORE}/busy`,
          withKey(WRITER_KEY, { value: { n }, readRestriction: restriction, writeRestriction: restriction }),
        ),
      ),
    );
    expect(creates.map((r) => r.status)).toEqual(creates.map(() => 200));
    const ids = new Set(creates.map((r) => r.body.id));
    expect(ids.size).toBe(perInstance * 3);
    const list = await call(1, 'GET', `${STORE}/busy?limit=1000`);
    expect(list.body.total).toBe(perInstance * 3);
    expect(new Set(list.body.items.map((it: { value: { n: number } }) => it.value.n)).size).toBe(perInstance * 3);

    const versions = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        call(
          n % 3,
          'POST',
          '/cxf/svc-forms/forms/contended',
          withKey(WRITER_KEY, { name: `v-${n}`, config: { configuration: {}, components: [] } }),
        ),
      ),
    );
    expect(versions.map((r) => r.status)).toEqual(versions.map(() => 200));
    const numbers = versions.map((r) => r.body.version).sort((a: number, b: number) => a - b);
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const history = await call(0, 'GET', '/cxf/svc-forms/history/contended');
    const byVersion = new Map(history.body.map((f: { version: number; name: string }) => [f.version, f.name]));
    for (const r of versions) expect(byVersion.get(r.body.version)).toBe(r.body.name);
  });

  it('login throttling counts failures on every instance together', async () => {
    const wrong = { loginName: CAROL.loginName, password: 'not-her-password' };
    // Five failures spread over the three instances use up carol's allowance of five...
    for (const i of [0, 1, 2, 0, 1]) expect((await login(i, wrong)).status).toBe(401);
    // ...so the next attempt is refused on any instance, even with the right password.
    for (const i of [2, 0, 1]) expect((await login(i, CAROL)).status).toBe(429);
  });

  it('a notification added on one instance reaches live subscribers on the others; maintenance switches on all', async () => {
    const subscribers = await Promise.all(
      [1, 2].map((i) => openSse(`${url(i)}/cxf/svc-core/notification/stream`, { 'x-apikey': WRITER_KEY })),
    );
    try {
      const added = await call(
        0,
        'POST',
        '/cxf/svc-core/notification',
        withKey(WRITER_KEY, { subject: 'cluster-wide', recipients: ['OWNER'], recipientsType: 'role' }),
      );
      expect(added.status).toBe(200);
      for (const s of subscribers) {
        const [event] = await s.waitFor(1, 'notification');
        expect(JSON.parse(event.data)).toEqual({ action: 'add', notification: added.body });
      }
      expect(
        (await call(1, 'PUT', '/cxf/svc-core/notification-maintenance', withKey(ADMIN_KEY, { active: true }))).status,
      ).toBe(200);
      for (const i of [0, 2]) expect((await call(i, 'GET', '/cxf/svc-core/notification')).status).toBe(503);
      expect(
        (await call(2, 'PUT', '/cxf/svc-core/notification-maintenance', withKey(ADMIN_KEY, { active: false }))).status,
      ).toBe(200);
      for (const i of [0, 1]) expect((await call(i, 'GET', '/cxf/svc-core/notification')).status).toBe(200);
    } finally {
      subscribers.forEach((s) => s.close());
    }
  });
}

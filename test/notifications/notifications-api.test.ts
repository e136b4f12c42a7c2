import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine, login, sessionHeaders, startTestApp, type TestApp } from '../helpers/test-app.js';
import { expectErrorObject } from '../storage/storage-kit.js';
import {
  ADDER_KEY,
  ADMIN_KEY,
  ALICE,
  BOB,
  DELETER_KEY,
  N,
  NOTIFICATIONS_CONFIG,
  OTHER_ADMIN_KEY,
  PLAIN_KEY,
  UPDATER_KEY,
  call,
  note,
} from './notifications-kit.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describeEachEngine('notification API', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, NOTIFICATIONS_CONFIG);
  });
  afterAll(() => t.close());

  async function sessionCall(
    user: { loginName: string; password: string },
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
  ) {
    const s = await login(t, 'acme', user.loginName, user.password);
    return t.request({
      method,
      url,
      headers: {
        ...sessionHeaders(s, method !== 'GET'),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
  }

  describe('add, update, delete, get', () => {
    it('adds with the defaults of the spec: id, priority 5, type info, originator, date and version 1', async () => {
      const before = Date.now();
      const res = await call(t, 'POST', N, ADMIN_KEY, { subject: 'Hello', recipients: ['R1'], recipientsType: 'role' });
      expect(res.statusCode).toBe(200);
      const n = res.json();
      expect(n).toMatchObject({
        priority: 5,
        subject: 'Hello',
        recipients: ['R1'],
        recipientsType: 'role',
        originator: 'notifier',
        type: 'info',
        version: 1,
      });
      expect(n.id).toMatch(UUID);
      expect(Object.keys(n)[0]).toBe('id');
      expect(Date.parse(n.date)).toBeGreaterThanOrEqual(before - 1);
      expect(n.date).toBe(new Date(Date.parse(n.date)).toISOString());
      expect((await call(t, 'GET', `${N}/${n.id}`, ADMIN_KEY)).json()).toEqual(n);
    });

    it('keeps what the caller gives: id, priority, message, originator, icon, type link with its data', async () => {
      const body = {
        id: 'n-link-1',
        priority: 10,
        subject: 'Open the order',
        message: 'Order 42 waits for you',
        recipients: ['alice'],
        recipientsType: 'user',
        originator: 'order-service',
        icon: 'fa-box',
        type: 'link',
        typeSpecificData: { targetModule: 'orders', route: ['orders', '42'] },
      };
      const res = await call(t, 'POST', N, ADDER_KEY, body);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ ...body, version: 1 });
      const custom = await call(
        t,
        'POST',
        N,
        ADDER_KEY,
        note('user', ['alice'], { type: 'reminder', typeSpecificData: { due: '2026-12-01' } }),
      );
      expect(custom.json()).toMatchObject({ type: 'reminder', typeSpecificData: { due: '2026-12-01' } });
    });

    it('an id that exists answers 409 and changes nothing', async () => {
      await call(t, 'POST', N, ADMIN_KEY, note('role', ['R1'], { id: 'dup-1', subject: 'first' }));
      expectErrorObject(
        await call(t, 'POST', N, ADMIN_KEY, note('role', ['R2'], { id: 'dup-1', subject: 'second' })),
        409,
      );
      expect((await call(t, 'GET', `${N}/dup-1`, ADMIN_KEY)).json()).toMatchObject({
        subject: 'first',
        recipients: ['R1'],
        version: 1,
      });
    });

    it('updates: fields replaced, version + 1, a new date, originator kept unless given', async () => {
      const added = (await call(t, 'POST', N, ADMIN_KEY, note('role', ['R1'], { id: 'upd-1', icon: 'bell' }))).json();
      const res = await call(t, 'PUT', `${N}/upd-1`, UPDATER_KEY, { ...added, subject: 'changed', priority: 0 });
      expect(res.statusCode).toBe(200);
      const updated = res.json();
      expect(updated).toMatchObject({
        id: 'upd-1',
        subject: 'changed',
        priority: 0,
        originator: 'notifier',
        icon: 'bell',
        version: 2,
      });
      expect(Date.parse(updated.date)).toBeGreaterThan(Date.parse(added.date));
      const again = (
        await call(t, 'PUT', `${N}/upd-1`, ADMIN_KEY, note('user', ['bob'], { originator: 'someone' }))
      ).json();
      expect(again).toMatchObject({
        version: 3,
        originator: 'someone',
        recipientsType: 'user',
        recipients: ['bob'],
        type: 'info',
        priority: 5,
      });
      expect(again.icon).toBeUndefined();
    });

    it('an update of a missing id is 404; a body naming another id is 400; both change nothing', async () => {
      expectErrorObject(await call(t, 'PUT', `${N}/missing-1`, ADMIN_KEY, note('role', ['R1'])), 404);
      expect((await call(t, 'GET', `${N}/missing-1`, ADMIN_KEY)).statusCode).toBe(404);
      await call(t, 'POST', N, ADMIN_KEY, note('role', ['R1'], { id: 'upd-2' }));
      const e = expectErrorObject(
        await call(t, 'PUT', `${N}/upd-2`, ADMIN_KEY, note('role', ['R1'], { id: 'other' })),
        400,
      );
      expect(e.message).toContain('id');
      expect((await call(t, 'GET', `${N}/upd-2`, ADMIN_KEY)).json().version).toBe(1);
    });

    it('deletes and answers the deleted notification; then it is gone', async () => {
      const added = (await call(t, 'POST', N, ADMIN_KEY, note('role', ['R1']))).json();
      const res = await call(t, 'DELETE', `${N}/${added.id}`, DELETER_KEY);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(added);
      expectErrorObject(await call(t, 'GET', `${N}/${added.id}`, ADMIN_KEY), 404);
      expectErrorObject(await call(t, 'DELETE', `${N}/${added.id}`, ADMIN_KEY), 404);
    });
  });

  describe('rights', () => {
    it.each([
      ['add without NOTIFICATION_ADD', 'POST', N, UPDATER_KEY],
      ['update without NOTIFICATION_UPDATE', 'PUT', `${N}/r-1`, ADDER_KEY],
      ['delete without NOTIFICATION_DELETE', 'DELETE', `${N}/r-1`, UPDATER_KEY],
      ['add by a plain key', 'POST', N, PLAIN_KEY],
    ] as const)('%s: 403, nothing changes', async (_name, method, url, key) => {
      await call(t, 'POST', N, ADMIN_KEY, note('role', ['R1'], { id: 'r-1', subject: 'kept' })).catch(() => undefined);
      expectErrorObject(
        await call(t, method, url, key, method === 'DELETE' ? undefined : note('role', ['R1'], { subject: 'changed' })),
        403,
      );
      expect((await call(t, 'GET', `${N}/r-1`, ADMIN_KEY)).json()).toMatchObject({ subject: 'kept', version: 1 });
    });

    it('no credential: 401 on every endpoint, the stream included', async () => {
      for (const [method, url] of [
        ['GET', N],
        ['GET', `${N}/x`],
        ['POST', N],
        ['PUT', `${N}/x`],
        ['DELETE', `${N}/x`],
        ['GET', `${N}/stream`],
      ] as const) {
        expectErrorObject(
          await call(t, method, url, null, method === 'POST' || method === 'PUT' ? note('role', ['R1']) : undefined),
          401,
        );
      }
    });

    it('a session write needs its CSRF token', async () => {
      const s = await login(t, 'acme', ALICE.loginName, ALICE.password);
      const res = await t.request({
        method: 'POST',
        url: N,
        headers: { ...sessionHeaders(s, false), 'content-type': 'application/json' },
        payload: JSON.stringify(note('role', ['R1'])),
      });
      expect(res.statusCode).toBe(403);
    });
  });

  describe('who sees what', () => {
    let t2: TestApp;
    const ids: Record<string, string> = {};
    beforeAll(async () => {
      t2 = await startTestApp(engine, NOTIFICATIONS_CONFIG);
      const add = async (name: string, body: Record<string, unknown>) =>
        (ids[name] = (await call(t2, 'POST', N, ADMIN_KEY, body)).json().id);
      await add('toAlice', note('user', ['alice']));
      await add('toBob', note('user', ['bob']));
      await add('toR1', note('role', ['R1', 'R7']));
      await add('toR2', note('role', ['R2']));
      await add('toO1', note('organisation', ['O1']));
      await add('toO2', note('organisation', ['O2']));
      await add('toO3', note('organisation', ['O3']));
      await add('toBoth', note('role', ['R1', 'R2']));
      await call(t2, 'POST', N, OTHER_ADMIN_KEY, note('user', ['alice'], { id: 'globex-1' }));
    });
    afterAll(() => t2.close());

    const listIds = async (res: { json(): any }) => res.json().items.map((n: { id: string }) => n.id);

    it.each([
      ['alice (user, role R1, active organisation O1; O2 inactive)', ALICE, ['toBoth', 'toO1', 'toR1', 'toAlice']],
      ['bob (user, role R2, organisation O3)', BOB, ['toBoth', 'toO3', 'toR2', 'toBob']],
    ])('%s sees exactly hers, newest first, with a true total', async (_name, user, expected) => {
      const s = await login(t2, 'acme', user.loginName, user.password);
      const res = await t2.request({ method: 'GET', url: N, headers: sessionHeaders(s, false) });
      expect(res.statusCode).toBe(200);
      expect(res.json().total).toBe(expected.length);
      expect(await listIds(res)).toEqual(expected.map((k) => ids[k]));
      for (const [name, id] of Object.entries(ids)) {
        const one = await t2.request({ method: 'GET', url: `${N}/${id}`, headers: sessionHeaders(s, false) });
        expect(one.statusCode, name).toBe(expected.includes(name) ? 200 : 404);
      }
    });

    it('NOTIFICATION_ADMIN sees every notification of its tenant and none of another', async () => {
      const res = await call(t2, 'GET', N, ADMIN_KEY);
      expect(res.json().total).toBe(8);
      expect((await call(t2, 'GET', `${N}/globex-1`, ADMIN_KEY)).statusCode).toBe(404);
      const other = await call(t2, 'GET', N, OTHER_ADMIN_KEY);
      expect(await listIds(other)).toEqual(['globex-1']);
      expect((await call(t2, 'GET', `${N}/${ids.toAlice}`, OTHER_ADMIN_KEY)).statusCode).toBe(404);
      expect((await call(t2, 'PUT', `${N}/${ids.toAlice}`, OTHER_ADMIN_KEY, note('user', ['x']))).statusCode).toBe(404);
      expect((await call(t2, 'DELETE', `${N}/${ids.toAlice}`, OTHER_ADMIN_KEY)).statusCode).toBe(404);
    });

    it('a key sees by its own name, roles and organisations; a plain key nothing', async () => {
      expect((await call(t2, 'GET', N, PLAIN_KEY)).json()).toEqual({ total: 0, items: [] });
    });

    it('pages with start and limit; total stays the whole count', async () => {
      const all = await listIds(await call(t2, 'GET', N, ADMIN_KEY));
      const page = await call(t2, 'GET', `${N}?start=2&limit=3`, ADMIN_KEY);
      expect(page.json().total).toBe(8);
      expect(await listIds(page)).toEqual(all.slice(2, 5));
      expect((await call(t2, 'GET', `${N}?start=100`, ADMIN_KEY)).json()).toEqual({ total: 8, items: [] });
      expect((await call(t2, 'GET', `${N}?limit=0`, ADMIN_KEY)).json()).toEqual({ total: 8, items: [] });
    });

    it('an update moves a notification to the top and to its new recipients', async () => {
      await call(t2, 'PUT', `${N}/${ids.toBob}`, ADMIN_KEY, note('user', ['alice', 'bob']));
      const s = await login(t2, 'acme', ALICE.loginName, ALICE.password);
      const res = await t2.request({ method: 'GET', url: N, headers: sessionHeaders(s, false) });
      expect((await listIds(res))[0]).toBe(ids.toBob);
    });
  });

  describe('bad input: a clear 400, nothing stored', () => {
    it.each([
      ['priority outside 0/5/10', note('role', ['R1'], { priority: 3 }), 'priority'],
      ['unknown recipientsType', note('team', ['R1']), 'recipientsType'],
      ['empty recipients', note('role', []), 'recipients'],
      ['an empty recipient', note('role', ['']), 'recipients'],
      ['missing subject', { recipients: ['R1'], recipientsType: 'role' }, 'subject'],
      ['missing recipients', { subject: 's', recipientsType: 'role' }, 'recipients'],
      ['missing recipientsType', { subject: 's', recipients: ['R1'] }, 'recipientsType'],
      ['a subject over 1,000 characters', note('role', ['R1'], { subject: 'x'.repeat(1001) }), 'subject'],
      [
        'a link whose route is not a list of strings',
        note('role', ['R1'], { type: 'link', typeSpecificData: { targetModule: 'm', route: 'r' } }),
        'route',
      ],
      ['typeSpecificData not an object', note('role', ['R1'], { typeSpecificData: [1] }), 'typeSpecificData'],
      ['an id with a slash', note('role', ['R1'], { id: 'a/b' }), 'id'],
    ])('%s', async (_name, body, field) => {
      const before = (await call(t, 'GET', N, ADMIN_KEY)).json().total;
      const e = expectErrorObject(await call(t, 'POST', N, ADMIN_KEY, body), 400);
      expect(JSON.stringify(e)).toContain(field);
      expect((await call(t, 'GET', N, ADMIN_KEY)).json().total).toBe(before);
    });

    it('a subject of 1 MB is refused (413 or 400), nothing stored', async () => {
      const before = (await call(t, 'GET', N, ADMIN_KEY)).json().total;
      const res = await call(t, 'POST', N, ADMIN_KEY, note('role', ['R1'], { subject: 'x'.repeat(1024 * 1024) }));
      expect([400, 413]).toContain(res.statusCode);
      expectErrorObject(res, res.statusCode);
      expect((await call(t, 'GET', N, ADMIN_KEY)).json().total).toBe(before);
    });

    it('start or limit that are not integers: 400', async () => {
      expectErrorObject(await call(t, 'GET', `${N}?start=-1`, ADMIN_KEY), 400);
      expectErrorObject(await call(t, 'GET', `${N}?limit=abc`, ADMIN_KEY), 400);
    });

    it('a user session reads its own list (the session user is a recipient by login name)', async () => {
      await call(t, 'POST', N, ADMIN_KEY, note('user', ['bob'], { id: 'for-bob' }));
      const res = await sessionCall(BOB, 'GET', N);
      expect(res.json().items.map((n: { id: string }) => n.id)).toContain('for-bob');
    });
  });
});

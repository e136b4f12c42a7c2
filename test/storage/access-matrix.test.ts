// Who may read, list, update and delete an item: every principal kind against every restriction kind.
// Items are written by the `owner` key; the restriction under test is the item's read or write restriction,
// the other one names only `owner`, so read and write access are judged separately.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  apiKeyCaller,
  client,
  expectErrorObject,
  OWNER_KEY,
  sessionCaller,
  STORAGE_CONFIG,
  type Caller,
} from './storage-kit.js';

type Principal = 'session' | 'apiKey';
const LOGIN: Record<Principal, string> = { session: 'uma', apiKey: 'kim' };

/** Restriction kinds and whether a principal holding user/orgA/roleA/rightA (orgOld inactive) is granted. */
const RESTRICTIONS: Array<{ kind: string; restriction: (p: Principal) => Record<string, unknown>; granted: boolean }> =
  [
    { kind: 'user', restriction: (p) => ({ user: LOGIN[p] }), granted: true },
    { kind: 'organisation', restriction: () => ({ organisations: ['orgZ', 'orgA'] }), granted: true },
    { kind: 'inactive organisation', restriction: () => ({ organisations: ['orgOld'] }), granted: false },
    { kind: 'role', restriction: () => ({ roles: ['roleA'] }), granted: true },
    { kind: 'right', restriction: () => ({ rights: ['rightA'] }), granted: true },
    {
      kind: 'several lists, one matching',
      restriction: () => ({ organisations: ['orgZ'], roles: ['roleZ'], rights: ['rightA'] }),
      granted: true,
    },
    { kind: 'another user', restriction: () => ({ user: 'someone-else' }), granted: false },
    {
      kind: 'user set, lists not saved',
      restriction: () => ({ user: 'someone-else', roles: ['roleA'], rights: ['rightA'] }),
      granted: false,
    },
    {
      kind: 'no match',
      restriction: () => ({ organisations: ['orgZ'], roles: ['roleZ'], rights: ['rightZ'] }),
      granted: false,
    },
    { kind: 'user name as a role', restriction: (p) => ({ roles: [LOGIN[p]] }), granted: false },
  ];

const OWNER_ONLY = { user: 'owner' };
const slug = (s: string) => s.replace(/[^a-z]+/g, '-');

describeEachEngine('storage access matrix', (engine) => {
  let t: TestApp;
  const callers = {} as Record<Principal, Caller>;
  let owner: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    callers.session = await sessionCaller(t, 'acme', 'uma', 'uma-secret-1');
    callers.apiKey = apiKeyCaller('kim', 'k-kim-0123456789');
    // One store per principal kind: read-restricted items `r-<kind>` and write-restricted items `w-<kind>`.
    for (const p of ['session', 'apiKey'] as Principal[]) {
      for (const r of RESTRICTIONS) {
        const rr = await owner.put(`m-${p}`, `r-${slug(r.kind)}`, {
          value: r.kind,
          readRestriction: r.restriction(p),
          writeRestriction: OWNER_ONLY,
        });
        const ww = await owner.put(`m-${p}`, `w-${slug(r.kind)}`, {
          value: r.kind,
          readRestriction: OWNER_ONLY,
          writeRestriction: r.restriction(p),
        });
        if (rr.statusCode !== 200 || ww.statusCode !== 200) throw new Error(`seed failed: ${rr.body} ${ww.body}`);
      }
    }
  });
  afterAll(() => t.close());

  for (const p of ['session', 'apiKey'] as Principal[]) {
    describe(`${p} principal`, () => {
      it.each(RESTRICTIONS.map((r) => [r.kind, r.granted] as const))(
        'read item, restriction %s -> granted %s',
        async (kind, granted) => {
          const res = await client(t, callers[p]).read(`m-${p}`, `r-${slug(kind)}`);
          if (granted) {
            expect(res.statusCode).toBe(200);
            expect(res.json().value).toBe(kind);
          } else {
            expect(expectErrorObject(res, 403).messageKey).toBe('STORAGE_ERROR_NO_READ_ACCESS');
          }
        },
      );

      it('list shows exactly the readable items, and total counts only them', async () => {
        const res = await client(t, callers[p]).list(`m-${p}`);
        expect(res.statusCode).toBe(200);
        const expected = RESTRICTIONS.filter((r) => r.granted).map((r) => `r-${slug(r.kind)}`);
        expect(res.json().items.map((i: any) => i.id)).toEqual(expected);
        expect(res.json().total).toBe(expected.length);
      });

      it.each(RESTRICTIONS.map((r) => [r.kind, r.granted] as const))(
        'update item, write restriction %s -> granted %s (no read access needed)',
        async (kind, granted) => {
          const c = client(t, callers[p]);
          const body = {
            value: `updated by ${p}`,
            readRestriction: OWNER_ONLY,
            writeRestriction: { user: 'owner', roles: [] },
          };
          const res = await c.put(`m-${p}`, `w-${slug(kind)}`, body);
          const stored = (await owner.read(`m-${p}`, `w-${slug(kind)}`)).json();
          if (granted) {
            expect(res.statusCode).toBe(200);
            expect(res.json()).toMatchObject({ value: `updated by ${p}`, updatedBy: LOGIN[p], createdBy: 'owner' });
            expect(stored.value).toBe(`updated by ${p}`);
            // Restore for the delete case below.
            await owner.put(`m-${p}`, `w-${slug(kind)}`, {
              value: kind,
              readRestriction: OWNER_ONLY,
              writeRestriction: RESTRICTIONS.find((r) => r.kind === kind)!.restriction(p),
            });
          } else {
            expect(expectErrorObject(res, 403).messageKey).toBe('STORAGE_ERROR_NO_WRITE_ACCESS');
            expect(stored.value).toBe(kind);
            expect(stored.updatedBy).toBe('owner');
          }
        },
      );

      it.each(RESTRICTIONS.map((r) => [r.kind, r.granted] as const))(
        'delete item, write restriction %s -> granted %s',
        async (kind, granted) => {
          const res = await client(t, callers[p]).remove(`m-${p}`, `w-${slug(kind)}`);
          const after = await owner.read(`m-${p}`, `w-${slug(kind)}`);
          if (granted) {
            expect(res.statusCode).toBe(200);
            expect(res.json()).toMatchObject({ id: `w-${slug(kind)}`, value: kind });
            expect(after.statusCode).toBe(404);
          } else {
            expect(expectErrorObject(res, 403).messageKey).toBe('STORAGE_ERROR_NO_WRITE_ACCESS');
            expect(after.statusCode).toBe(200);
          }
        },
      );
    });
  }

  it('a write restriction grants no read access, and a read restriction no write access', async () => {
    const kim = client(t, callers.apiKey);
    await owner.put('sep', 'only-write', {
      value: 1,
      readRestriction: OWNER_ONLY,
      writeRestriction: { roles: ['roleA'] },
    });
    await owner.put('sep', 'only-read', {
      value: 2,
      readRestriction: { roles: ['roleA'] },
      writeRestriction: OWNER_ONLY,
    });
    expect((await kim.read('sep', 'only-write')).statusCode).toBe(403);
    expect((await kim.list('sep')).json().items.map((i: any) => i.id)).toEqual(['only-read']);
    expect(
      (
        await kim.put('sep', 'only-read', {
          value: 3,
          readRestriction: { roles: ['roleA'] },
          writeRestriction: { roles: ['roleA'] },
        })
      ).statusCode,
    ).toBe(403);
    expect((await kim.remove('sep', 'only-read')).statusCode).toBe(403);
  });

  it('an item granted through several of the caller grants is listed and counted once', async () => {
    const kim = client(t, callers.apiKey);
    const multi = { organisations: ['orgA'], roles: ['roleA', 'OWNER'], rights: ['rightA'] };
    for (const id of ['m1', 'm2', 'm3'])
      await owner.put('multi', id, { value: id, readRestriction: multi, writeRestriction: OWNER_ONLY });
    const variants: Array<Record<string, string | number>> = [
      {},
      { sort: 'value|DESC' },
      { filter: '[{"property":"value","operator":"ne","value":"x"}]' },
      { start: 1, limit: 1 },
    ];
    for (const params of variants) {
      const body = (await kim.list('multi', params)).json();
      expect(body.total).toBe(3);
      const expected = 'sort' in params ? ['m3', 'm2', 'm1'] : 'start' in params ? ['m2'] : ['m1', 'm2', 'm3'];
      expect(body.items.map((i: any) => i.id)).toEqual(expected);
    }
  });

  it('the creator gets no access of its own: only the restrictions count', async () => {
    const kim = client(t, callers.apiKey);
    const { id } = (
      await kim.create('creator', { value: 1, readRestriction: OWNER_ONLY, writeRestriction: OWNER_ONLY })
    ).json();
    expect((await kim.read('creator', id)).statusCode).toBe(403);
    expect((await kim.list('creator')).json()).toEqual({ total: 0, items: [] });
    expect((await owner.read('creator', id)).json().createdBy).toBe('kim');
  });

  it('a user without any grant sees nothing but may create', async () => {
    const nobody = client(t, await sessionCaller(t, 'acme', 'nobody', 'nobody-secret-1'));
    expect((await nobody.list('m-session')).json()).toEqual({ total: 0, items: [] });
    expect((await nobody.read('m-session', 'r-role')).statusCode).toBe(403);
    expect(
      (
        await nobody.create('nobody-store', {
          value: 1,
          readRestriction: { user: 'nobody' },
          writeRestriction: { user: 'nobody' },
        })
      ).statusCode,
    ).toBe(200);
    expect((await nobody.list('nobody-store')).json().total).toBe(1);
  });

  it('a session write without the CSRF token is refused and changes nothing', async () => {
    await owner.put('csrf', 'x', {
      value: 1,
      readRestriction: { roles: ['roleA'] },
      writeRestriction: { roles: ['roleA'] },
    });
    for (const method of ['DELETE', 'PUT'] as const) {
      const res = await t.request({
        method,
        url: '/cxf/svc-core/storage/store/csrf/x',
        headers: { ...callers.session.headers(false), 'content-type': 'application/json' },
        payload:
          method === 'PUT'
            ? JSON.stringify({
                value: 2,
                readRestriction: { roles: ['roleA'] },
                writeRestriction: { roles: ['roleA'] },
              })
            : undefined,
      });
      expect(expectErrorObject(res, 403).messageKey).toBe('CORE_ERROR_CSRF_TOKEN_INVALID');
    }
    expect((await client(t, callers.session).read('csrf', 'x')).json().value).toBe(1);
  });
});

// The storage value index as a user meets it: lists answer the same whatever the index holds, writes keep the index
// rows with the item (none after a failed write, replaced by an update, gone after a delete), items beyond the caps
// are stored and still found, and items written before the index are indexed after a restart without a change in
// any answer.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachEngine, startTestApp, ADMIN_PASSWORD, type TestApp } from '../helpers/test-app.js';
import {
  apiKeyCaller,
  client,
  item,
  OWNER_KEY,
  recordStatements,
  sessionCaller,
  STORAGE_CONFIG,
} from './storage-kit.js';
import { RESERVED_TOKEN_MARK } from '../../src/platform/query/text-terms.js';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import { VALUE_INDEX_LIMITS } from '../../src/platform/query/index.js';
import { FEW_READABLE } from '../../src/modules/storage/store-scope.js';

const filter = (conditions: unknown[]) => JSON.stringify(conditions);

describeEachEngine('storage value index', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  const db = () => t.database.db as any;
  const valueRows = async (itemId: string) =>
    (
      await sql<{
        path: string;
        t: number;
        num: number | null;
        str: string | null;
      }>`select k.path, v.t, v.num, v.str from storage_item_values v
        join storage_value_keys k on k.id = v.vk join storage_items i on i.seq = v.item_seq where i.item_id = ${itemId} and k.path <> '' order by k.path, v.t, v.num, v.str`.execute(
        db(),
      )
    ).rows.map((r) => [r.path, Number(r.t), r.num === null ? null : Number(r.num), r.str]);
  const ids = async (store: string, params: Record<string, string | number>) => {
    const res = await owner.list(store, params);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.total).toBe(body.items.length);
    return body.items.map((i: any) => i.id);
  };

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
  });
  afterAll(() => t.close());

  it('writes the rows of every scalar leaf with the item, replaces them on update and removes them on delete', async () => {
    expect(
      (
        await owner.put(
          'vi',
          'a',
          item({ status: 'open', n: 3, tags: ['x', 2, { deep: 1 }], nested: { ok: true, none: null } }),
        )
      ).statusCode,
    ).toBe(200);
    const asSet = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    // Scalars and array elements; objects and arrays themselves have no row; the restrictions are read from the document.
    expect(asSet(await valueRows('a'))).toEqual(
      asSet([
        ['favorite', 2, 0, null],
        ['value.n', 0, 3, null],
        ['value.nested.ok', 2, 1, null],
        ['value.status', 1, null, 'open'],
        ['value.tags', 0, 2, null],
        ['value.tags', 1, null, 'x'],
        ['value.tags', 3, null, null],
      ]),
    );
    expect(await ids('vi', { filter: filter([{ property: 'value.status', operator: 'eq', value: 'open' }]) })).toEqual([
      'a',
    ]);

    expect((await owner.put('vi', 'a', item({ status: 'closed' }))).statusCode).toBe(200);
    expect((await valueRows('a')).filter((r) => String(r[0]).startsWith('value'))).toEqual([
      ['value.status', 1, null, 'closed'],
    ]);
    expect(await ids('vi', { filter: filter([{ property: 'value.status', operator: 'eq', value: 'open' }]) })).toEqual(
      [],
    );
    expect(await ids('vi', { filter: filter([{ property: 'value.n', operator: 'exists', value: true }]) })).toEqual([]);

    expect((await owner.remove('vi', 'a')).statusCode).toBe(200);
    const left = await sql<{
      n: number;
    }>`select count(*) as n from storage_item_values v where not exists (select 1 from storage_items i where i.seq = v.item_seq)`.execute(
      db(),
    );
    expect(Number(left.rows[0].n)).toBe(0);
  });

  it('a refused write leaves no index rows and the old ones in place', async () => {
    expect((await owner.put('vi-refused', 'r', item({ status: 'kept' }))).statusCode).toBe(200);
    const before = await valueRows('r');
    const other = client(t, apiKeyCaller('other', 'k-other-0123456789'));
    expect((await other.put('vi-refused', 'r', item({ status: 'stolen' }))).statusCode).toBe(403);
    expect((await owner.put('vi-refused', 'r2', { value: { status: 'x' }, readRestriction: {} })).statusCode).toBe(406);
    expect(await valueRows('r')).toEqual(before);
    expect(await valueRows('r2')).toEqual([]);
  });

  it('finds and sorts items beyond the caps by reading them: a 10,000-leaf item, long strings', async () => {
    const long = 'L'.repeat(VALUE_INDEX_LIMITS.stringLength + 10);
    const leaves = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    expect((await owner.put('vi-caps', 'big', item({ status: 'open', n: 5, leaves }))).statusCode).toBe(200);
    expect((await owner.put('vi-caps', 'long', item({ status: long, n: 1, title: `${long}b` }))).statusCode).toBe(200);
    expect(
      (await owner.put('vi-caps', 'longer', item({ status: `${long}z`, n: 2, title: `${long}a` }))).statusCode,
    ).toBe(200);
    expect((await owner.put('vi-caps', 'short', item({ status: 'open', n: 3, title: 'M' }))).statusCode).toBe(200);
    const flags = await sql<{
      item_id: string;
      idx: number;
    }>`select item_id, idx from storage_items where store_id = 'vi-caps' order by item_id`.execute(db());
    expect(flags.rows.map((r) => [r.item_id, Number(r.idx)])).toEqual([
      ['big', 2],
      ['long', 1],
      ['longer', 1],
      ['short', 1],
    ]);
    expect(await valueRows('big')).toEqual([]);

    expect(
      await ids('vi-caps', {
        filter: filter([{ property: 'value.status', operator: 'eq', value: 'open' }]),
        sort: 'value.n|ASC',
      }),
    ).toEqual(['short', 'big']);
    expect(
      await ids('vi-caps', { filter: filter([{ property: 'value.leaves.k9999', operator: 'eq', value: 9999 }]) }),
    ).toEqual(['big']);
    expect(
      await ids('vi-caps', { filter: filter([{ property: 'value.status', operator: 'eq', value: long }]) }),
    ).toEqual(['long']);
    expect(
      await ids('vi-caps', { filter: filter([{ property: 'value.status', operator: 'gt', value: long }]) }),
    ).toEqual(['big', 'longer', 'short']);
    expect(
      await ids('vi-caps', { filter: filter([{ property: 'value.status', operator: 'like', value: 'LLL*z' }]) }),
    ).toEqual(['longer']);
    expect(await ids('vi-caps', { query: 'value.status:l*' })).toEqual(['long', 'longer']);
    // Strings order by their whole text, long or not; the item without a title sorts last.
    expect(await ids('vi-caps', { sort: 'value.title|ASC' })).toEqual(['longer', 'long', 'short', 'big']);
    expect(await ids('vi-caps', { sort: 'value.title|DESC' })).toEqual(['short', 'long', 'longer', 'big']);
  });

  it('answers paths with dots, brackets and unicode, and sorts a path of mixed types', async () => {
    await owner.put('vi-paths', 'p1', item({ 'a.b': 1, 'x[0]': 'bracket', größe: 'groß', mixed: 'text' }));
    await owner.put('vi-paths', 'p2', item({ a: { b: 2 }, größe: 'klein', mixed: 10 }));
    await owner.put('vi-paths', 'p3', item({ mixed: true }));
    await owner.put('vi-paths', 'p4', item({ mixed: [1] }));
    await owner.put('vi-paths', 'p5', item({ mixed: null }));
    // A dotted path names nested keys only: the key "a.b" cannot be named (as when reading the document).
    expect(
      await ids('vi-paths', { filter: filter([{ property: 'value.a.b', operator: 'exists', value: true }]) }),
    ).toEqual(['p2']);
    expect(
      await ids('vi-paths', { filter: filter([{ property: 'value.x[0]', operator: 'eq', value: 'bracket' }]) }),
    ).toEqual(['p1']);
    expect(
      await ids('vi-paths', { filter: filter([{ property: 'value.größe', operator: 'eq', value: 'groß' }]) }),
    ).toEqual(['p1']);
    // Numbers and booleans first (numerically, true as 1), then strings, then arrays and objects; missing and null last.
    expect(await ids('vi-paths', { sort: 'value.mixed|ASC' })).toEqual(['p3', 'p2', 'p1', 'p4', 'p5']);
    expect(await ids('vi-paths', { sort: 'value.mixed|DESC' })).toEqual(['p4', 'p1', 'p2', 'p3', 'p5']);
  });

  it('counts and lists only what the caller may read, following a change of restrictions, each item once', async () => {
    const kim = client(t, apiKeyCaller('kim', 'k-kim-0123456789'));
    const other = client(t, apiKeyCaller('other', 'k-other-0123456789'));
    const seen = async (caller: ReturnType<typeof client>, params: Record<string, string>) => {
      const res = await caller.list('rs', params);
      expect(res.statusCode, res.body).toBe(200);
      return { total: res.json().total, ids: res.json().items.map((i: any) => i.id) };
    };
    const read = (roles: string[]) => ({ readRestriction: { roles }, writeRestriction: { roles: ['OWNER'] } });
    // Array elements repeat a value within an item: still one answer and one count per item.
    expect((await owner.put('rs', 'a', item({ tag: ['x', 'x', 'y'], n: 1 }, read(['roleA'])))).statusCode).toBe(200);
    expect((await owner.put('rs', 'b', item({ tag: 'x', n: 2 }, read(['roleB'])))).statusCode).toBe(200);
    expect((await owner.put('rs', 'c', item({ tag: ['x', 'x'], n: 3 }, read(['roleA', 'roleB'])))).statusCode).toBe(
      200,
    );
    expect(
      (
        await owner.put(
          'rs',
          'd',
          item({ tag: 'x'.repeat(VALUE_INDEX_LIMITS.stringLength + 1), n: 4 }, read(['roleB'])),
        )
      ).statusCode,
    ).toBe(200);
    const x = { filter: filter([{ property: 'value.tag', operator: 'eq', value: 'x' }]), sort: 'value.n|ASC' };
    const present = {
      filter: filter([{ property: 'value.tag', operator: 'exists', value: true }]),
      sort: 'value.n|ASC',
    };
    expect(await seen(kim, x)).toEqual({ total: 2, ids: ['a', 'c'] });
    expect(await seen(other, x)).toEqual({ total: 2, ids: ['b', 'c'] });
    expect(await seen(other, present)).toEqual({ total: 3, ids: ['b', 'c', 'd'] });
    expect(await seen(other, { query: 'value.tag:x', sort: 'value.n|ASC' })).toEqual({ total: 2, ids: ['b', 'c'] });
    expect(await seen(other, { query: 'x', sort: 'value.n|ASC' })).toEqual({ total: 2, ids: ['b', 'c'] });
    // A new restriction moves the item's rows to the new readers at once; the old ones no longer count it.
    expect((await owner.put('rs', 'b', item({ tag: 'x', n: 2 }, read(['roleA'])))).statusCode).toBe(200);
    expect(await seen(kim, x)).toEqual({ total: 3, ids: ['a', 'b', 'c'] });
    expect(await seen(other, x)).toEqual({ total: 1, ids: ['c'] });
    expect(await seen(other, { filter: filter([{ property: 'value.tag', operator: 'ne', value: 'x' }]) })).toEqual({
      total: 1,
      ids: ['d'],
    });
    expect((await owner.remove('rs', 'c')).statusCode).toBe(200);
    expect(await seen(other, x)).toEqual({ total: 0, ids: [] });
    expect(await seen(kim, { ...x, limit: '1', start: '1' })).toEqual({ total: 2, ids: ['b'] });
  });

  it('answers a caller who may read few of the items as one who may read most of them, each its own matches', async () => {
    // The owner may read more than FEW_READABLE items (the values' index rows are read, each tested for its reader
    // set); `other` a few of them (its items' rows are probed one by one). Both must see exactly their own matches.
    const other = client(t, apiKeyCaller('other', 'k-other-0123456789'));
    const count = FEW_READABLE + 100;
    const statuses = ['open', 'closed', 'pending'];
    const docs = Array.from({ length: count }, (_, i) => ({
      id: `m${i}`,
      n: i,
      status: statuses[i % 3],
      price: (i * 37) % 100,
      tags: i % 2 ? ['a', `t${i % 5}`] : `t${i % 5}`,
    }));
    const readers = (i: number) => (i % 40 === 0 ? ['OWNER', 'roleB'] : i % 7 === 0 ? ['roleB'] : ['OWNER']);
    for (let i = 0; i < count; i += 50) {
      const answers = await Promise.all(
        docs
          .slice(i, i + 50)
          .map((d, j) => owner.create('few', item(d, { readRestriction: { roles: readers(i + j) } }))),
      );
      for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    }
    const cases: Array<[Record<string, string>, (d: (typeof docs)[number]) => boolean]> = [
      [{ filter: filter([{ property: 'value.status', operator: 'eq', value: 'open' }]) }, (d) => d.status === 'open'],
      [
        {
          filter: filter([{ property: 'value.status', operator: 'in', value: ['open', 'pending'] }]),
          sort: 'value.n|DESC',
        },
        (d) => d.status !== 'closed',
      ],
      [
        {
          filter: filter([
            { property: 'value.price', operator: 'gte', value: 50 },
            { property: 'value.status', operator: 'ne', value: 'closed' },
          ]),
        },
        (d) => d.price >= 50 && d.status !== 'closed',
      ],
      [
        {
          filter: filter([{ property: 'value.tags', operator: 'eq', value: 't3' }]),
          sort: 'value.price|ASC,value.n|ASC',
        },
        (d) => [d.tags].flat().includes('t3'),
      ],
      [
        { filter: filter([{ property: 'value.status', operator: 'eq', value: 'open', invert: true }]) },
        (d) => d.status !== 'open',
      ],
      [
        { query: 'value.status:closed AND value.price:[10 TO 60]' },
        (d) => d.status === 'closed' && d.price >= 10 && d.price <= 60,
      ],
    ];
    for (const [caller, role] of [
      [owner, 'OWNER'],
      [other, 'roleB'],
    ] as const) {
      const mine = docs.filter((_, i) => readers(i).includes(role));
      expect(role === 'OWNER' ? mine.length >= FEW_READABLE : mine.length < FEW_READABLE).toBe(true);
      for (const [params, matches] of cases) {
        const res = await caller.list('few', { ...params, limit: 10000 });
        expect(res.statusCode, res.body).toBe(200);
        // Sorted by n where the list has no sort: the creates ran 50 at a time, so their creation order is not n's.
        const expected = mine.filter(matches).map((d) => d.n);
        if (params.sort === 'value.n|DESC') expected.reverse();
        if (params.sort?.startsWith('value.price')) expected.sort((a, b) => docs[a].price - docs[b].price || a - b);
        const body = res.json();
        const answered = body.items.map((i: any) => i.value.n);
        if (!params.sort) answered.sort((a: number, b: number) => a - b);
        expect(body.total, `${role} ${JSON.stringify(params)}`).toBe(expected.length);
        expect(answered, `${role} ${JSON.stringify(params)}`).toEqual(expected);
      }
    }
  }, 180_000);

  it('indexes items written before the index after a restart, with the same answers meanwhile and after', async () => {
    for (let i = 0; i < 60; i++) {
      await owner.put(
        'vi-old',
        `o${String(i).padStart(2, '0')}`,
        item({ status: ['open', 'closed', 'done'][i % 3], n: (i * 7) % 60, tags: [`t${i % 5}`] }),
      );
    }
    const queries: Array<Record<string, string>> = [
      { filter: filter([{ property: 'value.status', operator: 'eq', value: 'open' }]), sort: 'value.n|DESC' },
      {
        filter: filter([
          { property: 'value.n', operator: 'gte', value: 30 },
          { property: 'value.tags', operator: 'in', value: ['t1', 't2'], invert: true },
        ]),
      },
      { query: 'value.status:(open OR done) -value.n:[0 TO 10]', sort: 'value.tags|ASC,value.n|ASC' },
    ];
    const answers = async () => Promise.all(queries.map((q) => ids('vi-old', q)));
    const expected = await answers();
    expect(expected[0]).toHaveLength(20);
    // As if written before the index existed: no rows, flag 0, no reader set on the item.
    await sql`delete from storage_item_values where vk in (select id from storage_value_keys where store_id = 'vi-old')`.execute(
      db(),
    );
    await sql`update storage_items set idx = 0, rs = null where store_id = 'vi-old'`.execute(db());
    expect(await answers()).toEqual(expected);

    const second = await buildApp(
      parseConfig({
        ...STORAGE_CONFIG,
        server: { logLevel: 'silent' },
        identity: { bootstrapAdminPassword: ADMIN_PASSWORD },
      }),
      { database: t.database, logger: false },
    );
    try {
      await second.app.ready();
      const pending = async () =>
        Number(
          (await sql<{ n: number }>`select count(*) as n from storage_items where idx = 0`.execute(db())).rows[0].n,
        );
      for (let i = 0; i < 100 && (await pending()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await pending()).toBe(0);
      const rows = await sql<{
        n: number;
      }>`select count(*) as n from storage_item_values v join storage_value_keys k on k.id = v.vk where k.store_id = 'vi-old' and k.path <> ''`.execute(
        db(),
      );
      // favorite, status, n and one tag per item.
      expect(Number(rows.rows[0].n)).toBe(60 * 4);
      const withoutSet = await sql<{
        n: number;
      }>`select count(*) as n from storage_items where store_id = 'vi-old' and rs is null`.execute(db());
      expect(Number(withoutSet.rows[0].n)).toBe(0);
      // The indexer's rows are in the kept counts (storage_value_counts) as the counted rows are, no more, no less.
      const counts = await sql<{ kept: number | null; counted: number }>`select
        (select sum(c.n) from storage_value_counts c join storage_value_keys k on k.id = c.vk where k.store_id = 'vi-old') as kept,
        (select count(*) from storage_item_values v join storage_value_keys k on k.id = v.vk
          where k.store_id = 'vi-old' and v.elem = 0 and v.t in (0, 1, 2)) as counted`.execute(db());
      expect(Number(counts.rows[0].kept)).toBe(Number(counts.rows[0].counted));
      expect(Number(counts.rows[0].counted)).toBeGreaterThan(0);
      expect(await answers()).toEqual(expected);
    } finally {
      await second.close();
    }
  });
});

describeEachEngine('storage full-text search (bare query terms)', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  const ids = async (query: string) => {
    const res = await owner.list('fts', { query });
    expect(res.statusCode, res.body).toBe(200);
    return res
      .json()
      .items.map((i: any) => i.id)
      .sort();
  };

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    const put = (id: string, value: unknown, extra: Record<string, unknown> = {}) =>
      owner.put('fts', id, item(value, extra));
    await put('t1', { title: 'Invoice 2026-17 for ACME', lines: [{ text: 'Crème brûlée' }] });
    await put('t2', { title: 'Reminder: invoices overdue', note: 'e-mail sent' });
    await put('t3', { title: 'Order confirmation', total: 98765.25 }, { name: 'Hello World' });
    await put('t4', { title: 'World hello', text: `${'x'.repeat(300)} tailword` });
    await put('t5', {
      words: `${Array.from({ length: VALUE_INDEX_LIMITS.words + 5 }, (_, i) => `w${i}`).join(' ')} lastword`,
    });
  });
  afterAll(() => t.close());

  it('matches whole words, folding case and accents, in strings, numbers, nested arrays and long strings', async () => {
    expect(await ids('invoice')).toEqual(['t1']);
    expect(await ids('INVOICE')).toEqual(['t1']);
    expect(await ids('creme')).toEqual(['t1']);
    expect(await ids('BRÛLÉE')).toEqual(['t1']);
    expect(await ids('2026')).toEqual(['t1']);
    expect(await ids('98765')).toEqual(['t3']);
    expect(await ids('tailword')).toEqual(['t4']);
    expect(await ids('e-mail')).toEqual(['t2']);
    expect(await ids('hello')).toEqual(['t3', 't4']);
  });

  it('supports prefix and inner wildcards, phrases, and boolean combinations', async () => {
    expect(await ids('invoice*')).toEqual(['t1', 't2']);
    expect(await ids('inv?ice')).toEqual(['t1']);
    expect(await ids('*voices')).toEqual(['t2']);
    expect(await ids('"hello world"')).toEqual(['t3']);
    expect(await ids('"world hello"')).toEqual(['t4']);
    expect(await ids('hello -world')).toEqual([]);
    expect(await ids('invoice OR reminder')).toEqual(['t1', 't2']);
    // A pattern matches within one word, never across the space between two ("order confirmation", "world hello").
    // (t5 is beyond the words cap: its document text is searched as a whole, so it is left out here.)
    expect(await ids('o*n -lastword')).toEqual([]);
    expect(await ids('c*n -lastword')).toEqual(['t3']);
    expect(await ids('d?h -lastword')).toEqual([]);
    expect(await ids('w*o -lastword')).toEqual([]);
    expect(await ids('value.title:order* AND hello')).toEqual(['t3']);
  });

  it('finds only the items the caller may read, in this store and tenant, following a change of restrictions', async () => {
    const kim = client(t, apiKeyCaller('kim', 'k-kim-0123456789'));
    const other = client(t, apiKeyCaller('other', 'k-other-0123456789'));
    const globex = client(t, apiKeyCaller('globex', 'k-globex-owner-0123'));
    const L = 'abcdefghijkl';
    const read = (roles: string[]) => ({ readRestriction: { roles }, writeRestriction: { roles: ['OWNER'] } });
    const seen = async (caller: ReturnType<typeof client>, query: string, store = 'fts-r') => {
      const res = await caller.list(store, { query, sort: 'value.rank|ASC' });
      expect(res.statusCode, res.body).toBe(200);
      return { total: res.json().total, ids: res.json().items.map((i: any) => i.id) };
    };
    // Ids and words without digits and none of 14 characters or more: no pattern of digits or of that length finds an
    // item, although the tokens of the readers in the words index are 32 hexadecimal digits. Item rN is written N-th (N a
    // letter, `rank` too).
    for (let n = 0; n < 12; n++) {
      const roles = n % 3 === 0 ? ['roleA'] : n % 3 === 1 ? ['roleB'] : ['roleA', `role-${n}`];
      const value = { title: n % 2 ? 'Quarterly invoice' : 'Quarterly order', rank: L[n] };
      expect((await owner.put('fts-r', `r${L[n]}`, item(value, read(roles)))).statusCode).toBe(200);
    }
    // The same words in another store (readable by kim) and in another tenant (readable by everyone there).
    expect(
      (await owner.put('fts-elsewhere', 'e1', item({ title: 'Quarterly invoice', rank: 'a' }, read(['roleA']))))
        .statusCode,
    ).toBe(200);
    expect(
      (await globex.put('fts-r', 'g1', item({ title: 'Quarterly invoice', rank: 'a' }, read(['roleA', 'OWNER']))))
        .statusCode,
    ).toBe(200);

    // Found inside the words index: the search names the caller's tokens (text-terms.ts reservedToken).
    const recorded = recordStatements(t);
    try {
      expect(await seen(kim, 'invoice')).toEqual({ total: 4, ids: ['rd', 'rf', 'rj', 'rl'] });
    } finally {
      recorded.stop();
    }
    expect(recorded.parameters.flat().some((p) => typeof p === 'string' && p.includes(RESERVED_TOKEN_MARK))).toBe(true);
    expect(await seen(kim, 'quarterly')).toEqual({ total: 8, ids: ['ra', 'rc', 'rd', 'rf', 'rg', 'ri', 'rj', 'rl'] });
    expect(await seen(kim, 'quart*')).toEqual(await seen(kim, 'quarterly'));
    expect(await seen(kim, '"quarterly invoice"')).toEqual({ total: 4, ids: ['rd', 'rf', 'rj', 'rl'] });
    expect(await seen(kim, 'invoice OR order')).toEqual(await seen(kim, 'quarterly'));
    expect(await seen(kim, 'quarterly -invoice')).toEqual({ total: 4, ids: ['ra', 'rc', 'rg', 'ri'] });
    expect(await seen(other, 'invoice')).toEqual({ total: 2, ids: ['rb', 'rh'] });
    expect(await seen(kim, 'invoice', 'fts-elsewhere')).toEqual({ total: 1, ids: ['e1'] });
    // A caller who may read no item of the store finds none, whatever the word.
    const nobody = client(t, await sessionCaller(t, 'acme', 'nobody', 'nobody-secret-1'));
    expect(await seen(nobody, 'invoice')).toEqual({ total: 0, ids: [] });
    for (const digit of '0123456789') {
      expect(await seen(kim, `*${digit}*`), digit).toEqual({ total: 0, ids: [] });
      expect(await seen(kim, `${digit}*`), digit).toEqual({ total: 0, ids: [] });
      expect(await seen(kim, `?${digit}`), digit).toEqual({ total: 0, ids: [] });
    }
    expect(await seen(kim, `*${'?'.repeat(14)}*`)).toEqual({ total: 0, ids: [] });
    // A new restriction moves the item to its new readers at once.
    expect(
      (await owner.put('fts-r', 'rb', item({ title: 'Quarterly invoice', rank: 'b' }, read(['roleA'])))).statusCode,
    ).toBe(200);
    expect(await seen(kim, 'invoice')).toEqual({ total: 5, ids: ['rb', 'rd', 'rf', 'rj', 'rl'] });
    expect(await seen(other, 'invoice')).toEqual({ total: 1, ids: ['rh'] });
    expect((await owner.remove('fts-r', 'rh')).statusCode).toBe(200);
    expect(await seen(other, 'invoice')).toEqual({ total: 0, ids: [] });
  });

  it('answers an item once while it waits to be indexed again with its old words still in the index', async () => {
    // As after an upgrade that rebuilds the index (idx 0): the item is read from its document and found by its words.
    await sql`update storage_items set idx = 0 where item_id = 't1'`.execute(t.database.db as any);
    const res = await owner.list('fts', { query: 'invoice' });
    expect(res.json()).toMatchObject({ total: 1, items: [{ id: 't1' }] });
  });

  it('finds words beyond the indexed count in the document, and a term of only separators matches nothing', async () => {
    expect(await ids('lastword')).toEqual(['t5']);
    expect(await ids('w3')).toEqual(['t5']);
    expect(await ids('"!!!"')).toEqual([]);
    expect(await ids('"-"')).toEqual([]);
  });
});

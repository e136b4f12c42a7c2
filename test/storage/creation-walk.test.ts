// A list with a filter and no sort is read in creation order: where its matches are a good share of the store, by
// walking the store's readable items in that order, testing each one, and stopping after the page. Checked here
// against an answer computed apart: the items' creation order as the unfiltered list gives it (the access index alone,
// another plan), filtered by what each item holds. Filters on most items, ranges, inverted filters, field queries, a
// column, a NOT; a selective filter (no walk: its matches are read instead); matches that all come late (the walk gives
// up and the general plan answers); bare terms (words, prefix, pattern, with a filter), each item's words probed by
// its key (SQLite: among the matches between the walk's first and last key), also where most matches come after the
// keys a walk reads; and items whose words go beyond the index's cap (read from their documents).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, listIds, OWNER_KEY, putItems, recordStatements, STORAGE_CONFIG } from './storage-kit.js';

/** More readable items than a first page's walk reads (walkRows: 2,000 and 20 per wanted row). */
const ITEMS = 2600;
/** The walk's statement: the store's readable items in creation order. */
const WALK = /\(o\.rs \+ 0\)/;

const idOf = (i: number) => `i${String(i).padStart(4, '0')}`;
const numberOf = (id: string) => Number(id.slice(1));
const statusOf = (i: number) => (i % 5 === 0 ? 'rare' : 'common');

describeEachEngine('storage lists in creation order', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  /** The owner's readable items in creation order. */
  let created: string[];

  const list = (params: Record<string, string | number>) => listIds(owner, 'order', params);
  const filter = (...conditions: Array<Record<string, unknown>>) => JSON.stringify(conditions);

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    await putItems(owner, 'order', ITEMS, (i) => ({
      id: idOf(i),
      item: {
        value: {
          n: (i * 7919) % 10007,
          k: i,
          status: statusOf(i),
          title: i % 4 === 1 ? `Invoices ${i}` : `Invoice ${i}`,
        },
        // One item in eight is hidden from the owner.
        readRestriction: i % 8 === 0 ? { roles: ['roleB'] } : { roles: ['OWNER'] },
        writeRestriction: { roles: ['OWNER'] },
      },
    }));
    created = (await list({ limit: ITEMS })).ids;
    expect(created).toHaveLength(ITEMS - ITEMS / 8);
  }, 180_000);
  afterAll(() => t.close());

  const cases: Array<{
    name: string;
    params: Record<string, string>;
    matches: (i: number) => boolean;
    walks: boolean;
  }> = [
    {
      name: 'a filter on most items',
      params: { filter: filter({ property: 'value.status', operator: 'eq', value: 'common' }) },
      matches: (i) => statusOf(i) === 'common',
      walks: true,
    },
    {
      name: 'a range filter',
      params: { filter: filter({ property: 'value.n', operator: 'gte', value: 5000 }) },
      matches: (i) => (i * 7919) % 10007 >= 5000,
      walks: true,
    },
    {
      name: 'an inverted filter',
      params: { filter: filter({ property: 'value.status', operator: 'eq', value: 'rare', invert: true }) },
      matches: (i) => statusOf(i) !== 'rare',
      walks: true,
    },
    {
      name: 'a field query and a NOT',
      params: { query: 'value.status:common AND NOT value.k:[0 TO 99]' },
      matches: (i) => statusOf(i) === 'common' && i > 99,
      walks: true,
    },
    { name: 'a query on a column', params: { query: 'id:i1*' }, matches: (i) => idOf(i).startsWith('i1'), walks: true },
    {
      name: 'a selective filter',
      params: { filter: filter({ property: 'value.k', operator: 'lt', value: 10 }) },
      matches: (i) => i < 10,
      walks: false,
    },
    {
      name: 'matches that all come late',
      params: { filter: filter({ property: 'value.k', operator: 'gte', value: 2500 }) },
      matches: (i) => i >= 2500,
      walks: true,
    },
    { name: 'a bare term', params: { query: 'invoice' }, matches: (i) => i % 4 !== 1, walks: true },
    { name: 'a prefix', params: { query: 'invoic*' }, matches: () => true, walks: true },
    { name: 'a pattern', params: { query: 'inv?ices' }, matches: (i) => i % 4 === 1, walks: true },
    // Numbers are words too (title, n, k): the first matches lie among the keys the first pages walk, the most
    // (2500-2599) after them: a page there is found by the general plan, the walk having listed only the matches
    // among its own keys.
    {
      name: 'a prefix whose matches mostly come after the walked keys',
      params: { query: '25*' },
      matches: (i) => String(i).startsWith('25') || String((i * 7919) % 10007).startsWith('25'),
      walks: true,
    },
    {
      name: 'a bare term and a filter',
      params: { query: 'invoices AND value.status:common' },
      matches: (i) => i % 4 === 1 && statusOf(i) === 'common',
      walks: true,
    },
  ];

  for (const c of cases) {
    it(`pages of ${c.name} are in creation order`, async () => {
      const expected = created.filter((id) => c.matches(numberOf(id)));
      expect(expected.length).toBeGreaterThan(0);
      const recorder = recordStatements(t);
      try {
        for (const start of [0, 1, 4, 10, expected.length - 3]) {
          const page = await list({ ...c.params, start, limit: 5 });
          expect(page, `start ${start}`).toEqual({ total: expected.length, ids: expected.slice(start, start + 5) });
        }
      } finally {
        recorder.stop();
      }
      expect(recorder.texts.some((text) => WALK.test(text))).toBe(c.walks);
    });
  }

  it('walks a bare term over items whose words go beyond the index, finding them in their documents', async () => {
    // Items of 1,005 distinct words (the index holds 1,000): `zulu` and the phrase come after the cap, in the document only.
    const many = Array.from({ length: 1005 }, (_, i) => `w${i}`).join(' ');
    await putItems(owner, 'cut', 40, (i) => ({
      id: idOf(i),
      item: {
        value: { text: i % 3 === 0 ? `${many} zulu yankee` : i % 3 === 1 ? `zulu x${i}` : `other yankee zulu` },
        readRestriction: { roles: ['OWNER'] },
        writeRestriction: { roles: ['OWNER'] },
      },
    }));
    const expectations: Array<[string, (i: number) => boolean]> = [
      ['zulu', () => true],
      ['zul*', () => true],
      ['w1004', (i) => i % 3 === 0],
      ['"zulu yankee"', (i) => i % 3 === 0],
      ['"yankee zulu"', (i) => i % 3 === 2],
      ['x7', (i) => i === 7],
    ];
    // Creation order as the unfiltered list gives it (items are put concurrently).
    const order = (await listIds(owner, 'cut', { limit: 40 })).ids;
    expect(order).toHaveLength(40);
    const recorder = recordStatements(t);
    try {
      for (const [query, matches] of expectations) {
        const expected = order.filter((id) => matches(numberOf(id)));
        for (const start of [0, 3]) {
          expect(await listIds(owner, 'cut', { query, start, limit: 5 }), `${query} from ${start}`).toEqual({
            total: expected.length,
            ids: expected.slice(start, start + 5),
          });
        }
      }
    } finally {
      recorder.stop();
    }
    expect(recorder.texts.some((text) => WALK.test(text))).toBe(true);
  });

  it('reads a deep page from the general plan, which sorts fewer keys than the walk would read', async () => {
    const params = { filter: filter({ property: 'value.status', operator: 'eq', value: 'common' }) };
    const expected = created.filter((id) => statusOf(numberOf(id)) === 'common');
    const recorder = recordStatements(t);
    try {
      // The walk would read ~(start + limit) x 2,600 / 1,820 rows: more than the matches.
      const start = expected.length - 100;
      expect(await list({ ...params, start, limit: 5 })).toEqual({
        total: expected.length,
        ids: expected.slice(start, start + 5),
      });
    } finally {
      recorder.stop();
    }
    expect(recorder.texts.some((text) => WALK.test(text))).toBe(false);
  });

  it('does not walk again for a while once a walk gave up, and still walks for other lists', async () => {
    const late = (from: number) => ({
      filter: filter({ property: 'value.k', operator: 'gte', value: from }),
      limit: 5,
    });
    const walks = async (params: Record<string, string | number>) => {
      const recorder = recordStatements(t);
      try {
        const page = await list(params);
        const start = Number(params.start ?? 0);
        expect(page.ids).toEqual(
          created
            .filter((id) => numberOf(id) >= Number(JSON.parse(String(params.filter))[0].value))
            .slice(start, start + 5),
        );
      } finally {
        recorder.stop();
      }
      return recorder.texts.some((text) => WALK.test(text));
    };
    // A list of its own: its first page walks and gives up; the next ones take the general plan at once.
    expect(await walks(late(2490))).toBe(true);
    expect(await walks(late(2490))).toBe(false);
    expect(await walks({ ...late(2490), start: 1 })).toBe(false);
    // Another list still walks (and finds its page).
    expect(await walks(late(0))).toBe(true);
  });
});

// The totals of lists whose query is one bare word come from kept counts (storage_term_counts, kept by the writes in
// the item's transaction), summed over the caller's reader sets. Differential: random texts, random read
// restrictions, concurrent creates, updates (of texts and of restrictions) and deletes; then, for random words and
// three callers, the kept total must equal the total counted through the matches (the same query with a filter on a
// column, a shape that is never kept) and the total of an in-memory model of the store. An item with more words than
// its words row holds is found by its document (the kept total adds it). A write whose count update was skipped leaves
// a count one short; the last test puts one there and shows the check catches it (and by hand: taking out the update's
// decrement, the PostgreSQL create's count step or the update's removeWords call fails the differential test).
// THOROUGH=1 runs more rounds of writes and more words per check.
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { runs } from '../helpers/thorough.js';
import { apiKeyCaller, client, listIds, ownerApp, recordStatements, UNKEPT_CONFIG } from './storage-kit.js';

/** Words of the texts, as written (case and accents vary), and as a bare term asks for them (folded). */
const WORDS = ['alpha', 'Alpha', 'bravo', 'CHARLIE', 'delta', 'éclair', 'Eclair', 'echo', '42', 'foxtrot'];
const QUERIES = ['alpha', 'bravo', 'charlie', 'delta', 'eclair', 'ECHO', '42', 'foxtrot', 'golf', 'zulu'];
const fold = (w: string) =>
  w
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();

/** Read restrictions drawn for items, and who of the callers below each lets read. */
const RESTRICTIONS: Array<{ restriction: Record<string, string[]>; readers: string[] }> = [
  { restriction: { roles: ['OWNER'] }, readers: ['owner'] },
  { restriction: { roles: ['roleA'] }, readers: ['kim'] },
  { restriction: { roles: ['roleB'] }, readers: ['other'] },
  { restriction: { organisations: ['orgA'] }, readers: ['kim'] },
  { restriction: { roles: ['roleA', 'roleB'] }, readers: ['kim', 'other'] },
  { restriction: { roles: ['OWNER', 'roleB'] }, readers: ['owner', 'other'] },
  { restriction: { roles: ['nobody'] }, readers: [] },
];

type Value = { title: string; note?: string; n: number };
interface Modelled {
  value: Value;
  words: Set<string>;
  readers: string[];
}

/** Deterministic draws (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A filter every item passes, on a column: the query AND it is never a kept shape. */
const ALWAYS = JSON.stringify([{ property: 'id', operator: 'exists', value: true }]);

describeEachEngine('storage bare-term totals from kept counts', (engine) => {
  const app = ownerApp(engine, UNKEPT_CONFIG);
  const seed = 815 + (engine === 'postgres' ? 1 : 0);
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const int = (n: number) => Math.floor(rnd() * n);

  function drawValue(): Value {
    const words = Array.from({ length: 1 + int(4) }, () => pick(WORDS));
    const value: Value = { title: words.join(rnd() < 0.5 ? ' ' : '-'), n: int(100) };
    if (rnd() < 0.3) value.note = `${pick(WORDS)}, ${pick(WORDS)}!`;
    return value;
  }
  /** The folded words of an item's value, as the words index has them (the number `n` is a word too). */
  const wordsOf = (v: Value) =>
    new Set(
      [v.title, v.note ?? '', String(v.n)].flatMap((t) => fold(t).split(/[^\p{L}\p{N}]+/u)).filter((w) => w !== ''),
    );

  function callersOf() {
    const { t, owner } = app;
    return {
      owner,
      kim: client(t, apiKeyCaller('kim', 'k-kim-0123456789')),
      other: client(t, apiKeyCaller('other', 'k-other-0123456789')),
    };
  }

  /** Each query word's kept total, counted total and modelled total, per caller, must agree. */
  async function check(store: string, model: Map<string, Modelled>, words: string[]): Promise<void> {
    for (const word of words) {
      for (const [name, caller] of Object.entries(callersOf())) {
        const kept = await listIds(caller, store, { query: word, limit: 0 });
        const page = await listIds(caller, store, { query: word, limit: 2 });
        const counted = await listIds(caller, store, { query: word, filter: ALWAYS, limit: 0 });
        const modelled = [...model.values()].filter((m) => m.readers.includes(name) && m.words.has(fold(word)));
        const what = `${word}, caller ${name}`;
        expect({ what, kept: kept.total, page: page.total }).toEqual({
          what,
          kept: counted.total,
          page: counted.total,
        });
        expect({ what, kept: kept.total }).toEqual({ what, kept: modelled.length });
      }
    }
  }

  it('keeps bare-term totals equal to the counted ones through concurrent creates, updates, restriction changes and deletes', async () => {
    const { t, owner } = app;
    const store = 'terms';
    const model = new Map<string, Modelled>();
    const body = (value: Value, r: (typeof RESTRICTIONS)[number]) => ({
      value,
      readRestriction: r.restriction,
      writeRestriction: { roles: ['OWNER'] },
    });

    async function create(): Promise<void> {
      const value = drawValue();
      const r = pick(RESTRICTIONS);
      const res = await owner.create(store, body(value, r));
      expect(res.statusCode, res.body).toBe(200);
      model.set(res.json().id as string, { value, words: wordsOf(value), readers: r.readers });
    }
    async function update(id: string): Promise<void> {
      const before = model.get(id)!;
      // A new text, a new restriction, or both.
      const which = int(3);
      const value = which === 1 ? before.value : drawValue();
      const r = which === 0 ? RESTRICTIONS.find((x) => x.readers === before.readers)! : pick(RESTRICTIONS);
      const res = await owner.put(store, id, body(value, r));
      expect(res.statusCode, res.body).toBe(200);
      model.set(id, { value, words: wordsOf(value), readers: r.readers });
    }
    async function remove(id: string): Promise<void> {
      const res = await owner.remove(store, id);
      expect(res.statusCode, res.body).toBe(200);
      model.delete(id);
    }
    async function round(writes: number): Promise<void> {
      const ids = [...model.keys()].sort(() => rnd() - 0.5);
      const jobs: Array<Promise<void>> = [];
      for (let i = 0; i < writes; i++) {
        const op = ids.length === 0 ? 0 : int(3);
        if (op === 0) jobs.push(create());
        else if (op === 1) jobs.push(update(ids.pop()!));
        else jobs.push(remove(ids.pop()!));
      }
      await Promise.all(jobs);
    }

    // One item with more words than the index holds (1,000): its last words are only in its document, which a bare
    // term searches as text (a pattern: words inside other words too), so its filler words are of letters no query
    // word has.
    const letters = 'kmnqswy';
    const filler = Array.from(
      { length: 1000 },
      (_, i) =>
        `j${letters[i % 7]}${letters[Math.floor(i / 7) % 7]}${letters[Math.floor(i / 49) % 7]}${letters[Math.floor(i / 343)]}`,
    ).join(' ');
    const cut: Value = { title: `${filler} zulu alpha`, n: 7 };
    const cutRes = await owner.put(store, 'cut', body(cut, RESTRICTIONS[4]));
    expect(cutRes.statusCode, cutRes.body).toBe(200);
    model.set('cut', { value: cut, words: wordsOf(cut), readers: RESTRICTIONS[4].readers });

    await Promise.all(Array.from({ length: 40 }, () => create()));
    const rounds = runs(4, 12);
    for (let r = 0; r < rounds; r++) {
      await round(24);
      const words = [...QUERIES].sort(() => rnd() - 0.5).slice(0, runs(4, QUERIES.length));
      await check(store, model, r === rounds - 1 ? QUERIES : words);
    }

    // The kept path answered (not a count of the matches): the list reads the term counts.
    const recorded = recordStatements(t);
    try {
      await listIds(owner, store, { query: 'alpha', limit: 0 });
    } finally {
      recorded.stop();
    }
    expect(recorded.texts.some((text) => text.includes('storage_term_counts'))).toBe(true);
  });

  it('drifts from the counted total when a write skips its count update (the check catches a missed update)', async () => {
    const { owner } = app;
    const store = 'terms-fault';
    const put = async (id: string, title: string) => {
      const res = await owner.put(store, id, {
        value: { title },
        readRestriction: { roles: ['OWNER'] },
        writeRestriction: { roles: ['OWNER'] },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    const totals = async () => ({
      kept: (await listIds(owner, store, { query: 'golf', limit: 0 })).total,
      counted: (await listIds(owner, store, { query: 'golf', filter: ALWAYS, limit: 0 })).total,
    });
    await put('a', 'golf hotel');
    await put('b', 'india');
    expect(await totals()).toEqual({ kept: 1, counted: 1 });
    await put('b', 'golf india');
    expect(await totals()).toEqual({ kept: 2, counted: 2 });
    // The state an update leaves that did not add one of its new words to the counts: golf's count of b's reader set
    // one short (on PostgreSQL in one of its shards).
    const db = app.t.database.db as any;
    const rs = sql`(select rs from storage_items where store_id = ${store} and item_id = 'b')`;
    await sql`update storage_term_counts set n = n - 1 where term = 'golf' and rs = ${rs} and shard = (
      select min(shard) from storage_term_counts where term = 'golf' and rs = ${rs} and n > 0)`.execute(db);
    expect(await totals()).toEqual({ kept: 1, counted: 2 });
  });
});

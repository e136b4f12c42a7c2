// The totals of lists filtered on one path come from kept counts (storage_value_counts, kept by triggers on the value
// rows in every write's transaction), summed over the caller's reader sets. Differential: random items, random read
// restrictions, concurrent creates, updates (of values and of restrictions) and deletes; then, for many random
// filters and three callers, the kept total must equal both the total counted through the matches (the same filter
// with a second predicate on a column, a shape that is never kept) and the total of an in-memory model of the store.
// A write that skipped one count update (a trigger disabled, say) makes the kept total drift from both.
// THOROUGH=1 runs more rounds of writes and more filters per check.
import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { runs } from '../helpers/thorough.js';
import { apiKeyCaller, client, listIds, ownerApp, recordStatements, UNKEPT_CONFIG } from './storage-kit.js';

const STATUSES = ['open', 'closed', 'Open', 'pending'];
/** Read restrictions drawn for items, and who of the callers below each lets read. */
const RESTRICTIONS: Array<{ restriction: Record<string, string[]>; readers: string[] }> = [
  { restriction: { roles: ['OWNER'] }, readers: ['owner'] },
  { restriction: { roles: ['roleA'] }, readers: ['kim'] },
  { restriction: { roles: ['roleB'] }, readers: ['other'] },
  { restriction: { organisations: ['orgA'] }, readers: ['kim'] },
  { restriction: { rights: ['rightA'] }, readers: ['kim'] },
  { restriction: { roles: ['roleA', 'roleB'] }, readers: ['kim', 'other'] },
  { restriction: { roles: ['OWNER', 'roleB'] }, readers: ['owner', 'other'] },
  { restriction: { roles: ['nobody'] }, readers: [] },
];

type Value = { status?: string; n: number | string; flag: boolean };
interface Modelled {
  value: Value;
  readers: string[];
}

/** A filter of the list API and the model's answer for one item's value. */
interface Case {
  name: string;
  params: Record<string, string>;
  /** The same matches, as a shape the kept counts never answer (counted through the matches). */
  counted: Record<string, string>;
  matches?: (v: Value) => boolean;
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

describeEachEngine('storage list totals from kept counts', (engine) => {
  const app = ownerApp(engine, UNKEPT_CONFIG);
  const seed = 4711 + (engine === 'postgres' ? 1 : 0);
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const int = (n: number) => Math.floor(rnd() * n);

  function drawValue(): Value {
    const value: Value = { n: rnd() < 0.15 ? String(int(10)) : int(10), flag: rnd() < 0.5 };
    if (rnd() < 0.9) value.status = pick(STATUSES);
    return value;
  }

  const filter = (conds: Array<Record<string, unknown>>) => JSON.stringify(conds);
  /** A second predicate every item passes, on a column: the AND of it is never a kept shape. */
  const always = { property: 'id', operator: 'exists', value: true };

  function drawCase(): Case {
    const shape = int(7);
    const byFilter = (name: string, conds: Array<Record<string, unknown>>, matches: (v: Value) => boolean): Case => ({
      name,
      params: { filter: filter(conds) },
      counted: { filter: filter([...conds, always]) },
      matches,
    });
    switch (shape) {
      case 0: {
        const s = pick(STATUSES);
        return byFilter(
          `status = ${s}`,
          [{ property: 'value.status', operator: 'eq', value: s }],
          (v) => v.status === s,
        );
      }
      case 1: {
        const k = int(10);
        return byFilter(`n = ${k}`, [{ property: 'value.n', operator: 'eq', value: k }], (v) => v.n === k);
      }
      case 2: {
        const lo = int(10);
        const hi = lo + int(5);
        return byFilter(
          `${lo} <= n <= ${hi}`,
          [
            { property: 'value.n', operator: 'gte', value: lo },
            { property: 'value.n', operator: 'lte', value: hi },
          ],
          (v) => typeof v.n === 'number' && v.n >= lo && v.n <= hi,
        );
      }
      case 3: {
        const b = rnd() < 0.5;
        return byFilter(`flag = ${b}`, [{ property: 'value.flag', operator: 'eq', value: b }], (v) => v.flag === b);
      }
      case 4: {
        const ss = [pick(STATUSES), pick(STATUSES)];
        return byFilter(
          `status in ${ss}`,
          [{ property: 'value.status', operator: 'in', value: ss }],
          (v) => v.status !== undefined && ss.includes(v.status),
        );
      }
      case 5: {
        // A field query folds case (ASCII): `open` finds `Open` too.
        const s = pick(STATUSES).toLowerCase();
        return {
          name: `query value.status:${s}`,
          params: { query: `value.status:${s}` },
          counted: { query: `value.status:${s}`, filter: filter([always]) },
          matches: (v) => v.status?.toLowerCase() === s,
        };
      }
      default: {
        const lo = int(8);
        const hi = lo + 1 + int(4);
        return {
          name: `query value.n:[${lo} TO ${hi}]`,
          params: { query: `value.n:[${lo} TO ${hi}]` },
          counted: { query: `value.n:[${lo} TO ${hi}]`, filter: filter([always]) },
        };
      }
    }
  }

  it('keeps totals equal to the counted ones through concurrent creates, updates, restriction changes and deletes', async () => {
    const { t, owner } = app;
    const callers = {
      owner,
      kim: client(t, apiKeyCaller('kim', 'k-kim-0123456789')),
      other: client(t, apiKeyCaller('other', 'k-other-0123456789')),
    };
    const store = 'kept';
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
      model.set(res.json().id as string, { value, readers: r.readers });
    }
    async function update(id: string): Promise<void> {
      const before = model.get(id)!;
      // A new value, a new restriction, or both.
      const which = int(3);
      const value = which === 1 ? before.value : drawValue();
      const r = which === 0 ? RESTRICTIONS.find((x) => x.readers === before.readers)! : pick(RESTRICTIONS);
      const res = await owner.put(store, id, body(value, r));
      expect(res.statusCode, res.body).toBe(200);
      model.set(id, { value, readers: r.readers });
    }
    async function remove(id: string): Promise<void> {
      const res = await owner.remove(store, id);
      expect(res.statusCode, res.body).toBe(200);
      model.delete(id);
    }

    /** One round: writes in flight together, each item touched at most once. */
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

    async function check(cases: number): Promise<void> {
      for (let c = 0; c < cases; c++) {
        const kase = drawCase();
        for (const [name, caller] of Object.entries(callers)) {
          const kept = await listIds(caller, store, { ...kase.params, limit: 0 });
          const counted = await listIds(caller, store, { ...kase.counted, limit: 0 });
          const page = await listIds(caller, store, { ...kase.params, limit: 3 });
          const sorted = await listIds(caller, store, { ...kase.params, sort: 'value.flag|DESC', limit: 3 });
          const what = `${kase.name}, caller ${name}`;
          expect({ what, kept: kept.total }).toEqual({ what, kept: counted.total });
          expect({ what, page: page.total, sorted: sorted.total }).toEqual({
            what,
            page: counted.total,
            sorted: counted.total,
          });
          if (kase.matches) {
            const modelled = [...model.values()].filter((m) => m.readers.includes(name) && kase.matches!(m.value));
            expect({ what, kept: kept.total }).toEqual({ what, kept: modelled.length });
          }
        }
      }
    }

    // The first items in one batch of creates, then rounds of mixed writes, checked as they go.
    await Promise.all(Array.from({ length: 40 }, () => create()));
    const rounds = runs(4, 12);
    for (let r = 0; r < rounds; r++) {
      await round(24);
      await check(runs(6, 20));
    }

    // The kept path answered (not the count of the matches): the list reads the counts table.
    const recorded = recordStatements(t);
    try {
      await listIds(owner, store, {
        filter: filter([{ property: 'value.status', operator: 'eq', value: 'open' }]),
        limit: 0,
      });
    } finally {
      recorded.stop();
    }
    expect(recorded.texts.some((text) => text.includes('storage_value_counts'))).toBe(true);
    expect(recorded.texts.some((text) => text.includes('storage_item_values'))).toBe(false);
  });
});

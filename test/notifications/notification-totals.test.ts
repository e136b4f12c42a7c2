import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { runs } from '../helpers/thorough.js';
import { N, call } from './notifications-kit.js';

// Issue 47: a list's total comes from counts kept per recipient set, its page from one ordered walk per caller name.
// Differential: random adds, updates and deletes (concurrent, in batches), to users, roles and organisations, with
// recipient lists that name one, two or three of a caller's names; after each batch every caller's total must equal
// the count of what it may see in a model of the tenant, and its page the administrator's full list filtered by
// what the caller may see. A write that skipped or doubled a count update, or a walk that lost a row, fails it.
// THOROUGH=1 runs 300 writes instead of 60.

const ADMIN = 'k-totals-admin-0001';
const OTHER_ADMIN = 'k-totals-other-0001';
const POOLS = {
  user: ['u1', 'u2', 'u3', 'many', 'nobody'],
  role: ['R1', 'R2', 'R3', 'R4', 'R5'],
  organisation: ['O1', 'O2', 'O3', 'O4'],
} as const;
type Kind = keyof typeof POOLS;
/** Callers: the key's name is its login name. `many` holds more names than the page walks (the one-statement page). */
const CALLERS = [
  { name: 'u1', key: 'k-totals-u1-0001', roles: ['R1', 'R2'], organisations: ['O1'] },
  { name: 'u2', key: 'k-totals-u2-0001', roles: ['R2', 'R3', 'R4'], organisations: ['O1', 'O2'] },
  { name: 'u3', key: 'k-totals-u3-0001', roles: [], organisations: ['O3'] },
  {
    name: 'many',
    key: 'k-totals-many-0001',
    roles: ['R1', 'R3', 'R5', ...Array.from({ length: 100 }, (_, i) => `filler-${i}`)],
    organisations: ['O2', 'O4'],
  },
];
const CONFIG = {
  notifications: { listCacheSeconds: 0 },
  tenants: [
    {
      name: 'acme',
      apiKeys: [
        { name: 'notifier', key: ADMIN, roles: ['NOTIFICATION_ADMIN'] },
        ...CALLERS.map(({ name, key, roles, organisations }) => ({ name, key, roles, organisations })),
      ],
    },
    { name: 'globex', apiKeys: [{ name: 'notifier', key: OTHER_ADMIN, roles: ['NOTIFICATION_ADMIN'] }] },
  ],
};

interface Sent {
  recipientsType: Kind;
  recipients: string[];
}

function canSee(c: (typeof CALLERS)[number], n: Sent): boolean {
  const names = n.recipientsType === 'user' ? [c.name] : n.recipientsType === 'role' ? c.roles : c.organisations;
  return n.recipients.some((r) => names.includes(r));
}

/** A small seeded generator (mulberry32): a failure names its seed and replays. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const recipients = (): Sent => {
    const kind = pick(Object.keys(POOLS) as Kind[]);
    const pool = [...POOLS[kind]];
    const names = Array.from({ length: 1 + int(3) }, () => pool.splice(int(pool.length), 1)[0]!);
    // Sometimes a name twice: the service keeps it once.
    if (int(8) === 0) names.push(names[0]!);
    return { recipientsType: kind, recipients: names };
  };
  return { int, pick, recipients };
}

describeEachEngine('notification totals from kept counts', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, CONFIG);
  });
  afterAll(() => t.close());

  it('every caller total and page match the notifications it may see, under random concurrent writes', async () => {
    const seed = Number(process.env.SEED ?? Date.now() % 100_000);
    const rnd = random(seed);
    const model = new Map<string, Sent>();
    const writes = runs(60, 300);
    let made = 0;
    const check = async (step: number) => {
      const all = await call(t, 'GET', `${N}?limit=10000`, ADMIN);
      const adminList: { id: string; recipients: string[]; recipientsType: Kind }[] = all.json().items;
      expect(all.json().total, `seed ${seed}, step ${step}: administrator total`).toBe(model.size);
      expect(new Set(adminList.map((n) => n.id))).toEqual(new Set(model.keys()));
      for (const c of CALLERS) {
        const visible = adminList.filter((n) => canSee(c, n)).map((n) => n.id);
        const start = rnd.int(3);
        const limit = 1 + rnd.int(6);
        const res = await call(t, 'GET', `${N}?start=${start}&limit=${limit}`, c.key);
        expect(res.statusCode).toBe(200);
        const what = `seed ${seed}, step ${step}, caller ${c.name}, start ${start}, limit ${limit}`;
        expect(res.json().total, what).toBe([...model.values()].filter((n) => canSee(c, n)).length);
        expect(
          res.json().items.map((n: { id: string }) => n.id),
          what,
        ).toEqual(visible.slice(start, start + limit));
        // Past the end, and no page at all: still the total (the one-statement list left joins the page to it).
        const total = [...model.values()].filter((n) => canSee(c, n)).length;
        for (const query of [`start=${visible.length}&limit=2`, 'limit=0']) {
          const empty = await call(t, 'GET', `${N}?${query}`, c.key);
          expect(empty.json(), `${what}, ${query}`).toEqual({ total, items: [] });
        }
      }
    };
    for (let step = 0; made < writes; step++) {
      // A batch of up to four writes at once, each on another notification (the model knows each one's outcome).
      const touched = new Set<string>();
      const batch: Promise<void>[] = [];
      for (let i = 0; i < 4 && made < writes; i++, made++) {
        const ids = [...model.keys()].filter((id) => !touched.has(id));
        const op = ids.length < 3 ? 0 : rnd.int(10);
        if (op < 4) {
          const id = `n-${step}-${i}`;
          const body = rnd.recipients();
          touched.add(id);
          batch.push(
            call(t, 'POST', N, ADMIN, { id, subject: id, ...body }).then((res) => {
              expect(res.statusCode).toBe(200);
              model.set(id, { ...body, recipients: [...new Set(body.recipients)] });
            }),
          );
        } else if (op < 7) {
          const id = rnd.pick(ids);
          // Half the updates keep the recipient set (the count stays), half move it.
          const body = rnd.int(2) === 0 ? model.get(id)! : rnd.recipients();
          touched.add(id);
          batch.push(
            call(t, 'PUT', `${N}/${id}`, ADMIN, { subject: `${id} again`, ...body }).then((res) => {
              expect(res.statusCode).toBe(200);
              model.set(id, { ...body, recipients: [...new Set(body.recipients)] });
            }),
          );
        } else if (op < 9) {
          const id = rnd.pick(ids);
          touched.add(id);
          batch.push(
            call(t, 'DELETE', `${N}/${id}`, ADMIN).then((res) => {
              expect(res.statusCode).toBe(200);
              model.delete(id);
            }),
          );
        } else {
          // Another tenant's write changes no count of this one.
          batch.push(
            call(t, 'POST', N, OTHER_ADMIN, { subject: 'elsewhere', ...rnd.recipients() }).then((res) => {
              expect(res.statusCode).toBe(200);
            }),
          );
        }
      }
      await Promise.all(batch);
      await check(step);
    }
    // Everything deleted: every total back to 0 (the sets stay, at 0).
    await Promise.all([...model.keys()].map((id) => call(t, 'DELETE', `${N}/${id}`, ADMIN)));
    model.clear();
    await check(-1);
  }, 600_000);
});

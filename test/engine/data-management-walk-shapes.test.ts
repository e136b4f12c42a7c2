// Asset queries sorted by one indexed value, asked again after what their last query found has changed: the kind of
// the values at the sort path (a walk of one kind would miss the others) and the number of matches (a walk declined
// for few matches, then worth it). A query of a shape asked before checks its guards in the statement that walks, or
// is answered by the general page where the last one was; either way the page and total are the general plan's (a
// second sorter takes it), on both engines; on PostgreSQL the statement that walks with its guards is shown to run.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';

const URL_ = '/engine/servlet/UploadServlet/api_protocol';
const HEADERS = {
  authorization: `Basic ${Buffer.from('dm:dm-pass-1').toString('base64')}`,
  'content-type': 'application/json',
};
const TEMPLATE = {
  customId: 'w',
  name: 'W',
  attributes: [
    { key: 'n', type: 'integer' },
    { key: 's', type: 'string' },
    { key: 'j', type: 'json' },
  ],
};

describeEachEngine('data management API: a query of a shape asked before, after its data changed', (engine) => {
  let t: TestApp;
  const call = async (body: unknown) => {
    const res = await t.request({ method: 'POST', url: URL_, headers: HEADERS, payload: JSON.stringify(body) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const create = (from: number, to: number, attributes: (i: number) => Record<string, unknown>) =>
    call({
      requests: Array.from({ length: to - from }, (_, k) => ({
        context: 'Asset',
        method: 'create',
        parameters: {
          asset: { template: { customId: 'w' }, customId: `w-${from + k}`, attributes: attributes(from + k) },
        },
      })),
    });
  /** The query with one sorter (walked where it may be) and with a second one (the general plan): the same answer. */
  const same = async (value: string, property: string, direction: 'ASC' | 'DESC', start: number, limit: number) => {
    const query = (sorters: unknown[]) =>
      call({
        context: 'Asset',
        method: 'query',
        parameters: { filters: [{ property: 'attributes.s', operator: 'eq', value }], sorters, start, limit },
      });
    const one = await query([{ property, direction }]);
    const two = await query([
      { property, direction },
      { property: 'id', direction: 'ASC' },
    ]);
    const ids = (a: { assets: Array<{ id: number }> }) => a.assets.map((x) => x.id);
    expect(ids(one), `${value} ${property} ${direction} ${start}`).toEqual(ids(two));
    expect(one.total).toBe(two.total);
    return one;
  };

  beforeAll(async () => {
    // One connection: its session's prepared statements are the ones the queries used.
    t = await startTestApp(
      engine,
      { engine: { users: [{ name: 'dm', password: 'dm-pass-1', groups: ['DataManagement'] }] } },
      { poolSize: 1 },
    );
    await call({ context: 'Template', method: 'create', parameters: { template: TEMPLATE } });
    await create(0, 200, (i) => ({ n: i, s: i % 2 === 0 ? 'open' : 'closed', j: i }));
  });
  afterAll(() => t?.close());

  it('walks one kind only while the sort path holds only that kind', async () => {
    // Half the assets match: worth a walk. The first query reads the guards, the next ones check them as they walk.
    for (const direction of ['DESC', 'ASC', 'DESC'] as const)
      for (const [start, limit] of [
        [0, 10],
        [90, 10],
      ])
        expect((await same('open', 'attributes.j', direction, start, limit)).total).toBe(100);
    // A string among the numbers: no walk of the numbers gives the general plan's order now.
    const { assets } = await call({
      context: 'Asset',
      method: 'query',
      parameters: { filters: [{ property: 'attributes.n', operator: 'eq', value: 198 }], limit: 1 },
    });
    await call({
      context: 'Asset',
      method: 'update',
      parameters: { asset: { id: assets[0].id, attributes: { j: 'x' } } },
    });
    for (const direction of ['DESC', 'ASC', 'DESC'] as const)
      for (const [start, limit] of [
        [0, 10],
        [90, 10],
      ])
        expect((await same('open', 'attributes.j', direction, start, limit)).total).toBe(100);
    if (engine !== 'postgres') return;
    const { rows } = await sql<{ runs: string }>`
      SELECT sum(generic_plans + custom_plans) AS runs FROM pg_prepared_statements WHERE statement LIKE '%q__d%'`.execute(
      t.database.db,
    );
    expect(Number(rows[0].runs)).toBeGreaterThanOrEqual(8);
  });

  it('walks once the matches of a shape answered by the general page became many', async () => {
    await create(200, 202, (i) => ({ n: i, s: 'rare', j: i }));
    // Two matches: no walk; the next query of the shape goes to the general page at once.
    expect((await same('rare', 'attributes.n', 'DESC', 0, 10)).total).toBe(2);
    expect((await same('rare', 'attributes.n', 'DESC', 0, 10)).total).toBe(2);
    await create(202, 352, (i) => ({ n: i, s: 'rare', j: i }));
    for (const [start, limit] of [
      [0, 10],
      [0, 10],
      [140, 10],
      [148, 10],
    ])
      expect((await same('rare', 'attributes.n', 'DESC', start, limit)).total).toBe(152);
    // Fewer again: the walk, guessed, declines in its statement and the general page answers.
    const { assets } = await call({
      context: 'Asset',
      method: 'query',
      parameters: { filters: [{ property: 'attributes.s', operator: 'eq', value: 'rare' }], limit: 150 },
    });
    await call({
      requests: assets.slice(0, 148).map((a: { id: number }) => ({
        context: 'Asset',
        method: 'update',
        parameters: { asset: { id: a.id, attributes: { s: 'gone' } } },
      })),
    });
    for (let k = 0; k < 2; k++) expect((await same('rare', 'attributes.n', 'DESC', 0, 10)).total).toBe(4);
  });
});

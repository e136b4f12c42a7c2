// Asset queries with a range filter and one indexed sorter, run again and again with new bounds: the right page and
// total each time on both engines, and on PostgreSQL the walk's guards (which count the matches) keep one generic plan
// instead of being planned at every run (a range's bound as a parameter: a third of the rows in the generic plan's
// estimate, so a plan for the values always cost less and PostgreSQL never took the generic one).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';

const URL_ = '/engine/servlet/UploadServlet/api_protocol';
const HEADERS = {
  authorization: `Basic ${Buffer.from('dm:dm-pass-1').toString('base64')}`,
  'content-type': 'application/json',
};
const ASSETS = 400;
const MACHINE = {
  customId: 'machine',
  name: 'Machine',
  attributes: [
    { key: 'dm:serial', type: 'string', required: true },
    { key: 'dm:power', type: 'number' },
  ],
};
const serial = (i: number) => `S-${String(i).padStart(4, '0')}`;

describeEachEngine('data management API: range queries prepared by shape', (engine) => {
  let t: TestApp;
  const call = async (body: unknown) => {
    const res = await t.request({ method: 'POST', url: URL_, headers: HEADERS, payload: JSON.stringify(body) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    // One connection: its session's prepared statements are the ones the queries used.
    t = await startTestApp(
      engine,
      { engine: { users: [{ name: 'dm', password: 'dm-pass-1', groups: ['DataManagement'] }] } },
      { poolSize: 1 },
    );
    await call({ context: 'Template', method: 'create', parameters: { template: MACHINE } });
    for (let from = 0; from < ASSETS; from += 100) {
      await call({
        requests: Array.from({ length: 100 }, (_, k) => ({
          context: 'Asset',
          method: 'create',
          parameters: {
            asset: {
              template: { customId: 'machine' },
              customId: `m-${from + k}`,
              attributes: { 'dm:serial': serial(from + k), 'dm:power': from + k },
            },
          },
        })),
      });
    }
    // Statistics, as the upkeep leaves them: the plan for a bound then estimates its range from the histogram.
    if (engine === 'postgres') await sql`ANALYZE dm_asset_values`.execute(t.database.db);
  });
  afterAll(() => t?.close());

  it('answers each bound exactly, and on PostgreSQL the guards keep a generic plan', async () => {
    for (let run = 0; run < 9; run++) {
      const bound = 300 + run * 7;
      const answer = await call({
        context: 'Asset',
        method: 'query',
        parameters: {
          filters: [{ property: 'attributes.dm:power', operator: 'gte', value: bound }],
          sorters: [{ property: 'attributes.dm:serial', direction: 'DESC' }],
          limit: 10,
          verbosity: 0,
        },
      });
      expect(answer.total).toBe(ASSETS - bound);
      expect(answer.assets.map((a: { customId: string }) => a.customId)).toEqual(
        Array.from({ length: 10 }, (_, k) => `m-${ASSETS - 1 - k}`),
      );
    }
    if (engine !== 'postgres') return;
    const { rows } = await sql<{ generic_plans: string; custom_plans: string }>`
      SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%AS unindexed%'`.execute(
      t.database.db,
    );
    expect(rows).toHaveLength(1);
    // PostgreSQL plans for the values five times before it compares; from then on the generic plan.
    expect(Number(rows[0].generic_plans)).toBeGreaterThanOrEqual(4);
  });
});

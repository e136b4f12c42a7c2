// GET /storage/store/{storeId}/export: JSON as the list answers, CSV as documented, the list's parameters, access.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { READERS, STORE, STREAM_CONFIG, WRITER_KEY, itemFor } from './store-stream-kit.js';

describeEachEngine('storage export', (engine) => {
  let t: TestApp;
  const get = (url: string, key: string = READERS.r1.key) =>
    t.request({ method: 'GET', url: `${STORE}/${url}`, headers: { 'x-apikey': key } });
  beforeAll(async () => {
    // Pages of 10: the 25 items below take three, by creation order and by the list's offsets.
    t = await startTestApp(engine, { ...STREAM_CONFIG, storage: { ...STREAM_CONFIG.storage, exportPageSize: 10 } });
    for (let i = 0; i < 25; i++) {
      const roles = i % 5 === 4 ? ['R2'] : ['R1'];
      const value =
        i === 0 ? { n: 0, text: 'a "quoted", multi\nline', formula: '=SUM(A1)' } : { n: i, even: i % 2 === 0 };
      const res = await t.request({
        method: 'PUT',
        url: `${STORE}/ex/i${String(i).padStart(2, '0')}`,
        headers: { 'x-apikey': WRITER_KEY, 'content-type': 'application/json' },
        payload: JSON.stringify(itemFor(value, { roles })),
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  });
  afterAll(() => t.close());

  it('exports JSON exactly as the list answers, every readable item, streamed in pages', async () => {
    const res = await get('ex/export?format=json');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.headers['content-disposition']).toBe('attachment; filename="ex.json"');
    const list = (await get('ex')).json();
    expect(list.total).toBe(20);
    expect(res.json()).toEqual(list.items);
  });

  it('takes the list parameters: query, filter and sort', async () => {
    const params = 'query=value.even:true&sort=value.n|DESC';
    const res = await get(`ex/export?format=json&${params}`);
    expect(res.statusCode, res.body).toBe(200);
    const list = (await get(`ex?${params}`)).json();
    expect(list.total).toBe(9); // i00's value has no `even`
    expect(res.json()).toEqual(list.items);
    const filter = encodeURIComponent(JSON.stringify([{ property: 'value.n', operator: 'lt', value: 3 }]));
    const filtered = (await get(`ex/export?format=json&filter=${filter}&sort=id|ASC`)).json();
    expect(filtered.map((i: { id: string }) => i.id)).toEqual(['i00', 'i01', 'i02']);
  });

  it('exports CSV: fixed columns, the value fields of the first page, the whole value as JSON', async () => {
    const res = await get('ex/export?format=csv&sort=id|ASC');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const lines = res.body.split('\r\n');
    expect(lines[0]).toBe(
      'id,moduleId,moduleInstanceId,name,favorite,createdOn,createdBy,updatedOn,updatedBy,readRestriction,' +
        'writeRestriction,value.n,value.text,value.formula,value.even,value',
    );
    const list = (await get('ex?sort=id|ASC')).json();
    const first = list.items[0];
    // Quotes doubled, commas and line breaks quoted, a formula defused; the value column keeps the JSON as it is.
    expect(res.body).toContain(
      `i00,,,,false,${first.createdOn},writer,${first.updatedOn},writer,"{""roles"":[""R1""]}","{""roles"":[""W""]}",` +
        `0,"a ""quoted"", multi\nline",'=SUM(A1),,"{""n"":0,""text"":""a \\""quoted\\"", multi\\nline"",""formula"":""=SUM(A1)""}"\r\n`,
    );
    expect(res.body).toContain(`i02,,,,false,${list.items[2].createdOn},writer,`);
    expect(res.body.endsWith('\r\n')).toBe(true);
    // 20 readable items: a header, 20 records (i00's line break is LF, inside quotes), the empty rest after the last CRLF.
    expect(lines.length).toBe(1 + 20 + 1);
  });

  it('exports only what the caller may read, nothing of other tenants, an empty store as empty', async () => {
    const r2 = (await get('ex/export?format=json', READERS.r2.key)).json();
    expect(r2.map((i: { id: string }) => i.id)).toEqual(['i04', 'i09', 'i14', 'i19', 'i24']);
    expect((await get('ex/export?format=json', READERS.r3.key)).json()).toEqual([]);
    expect((await get('nothing-here/export?format=json')).json()).toEqual([]);
    const csv = (await get('nothing-here/export?format=csv')).body;
    expect(csv).toBe(
      'id,moduleId,moduleInstanceId,name,favorite,createdOn,createdBy,updatedOn,updatedBy,readRestriction,writeRestriction,value\r\n',
    );
  });

  it('answers bad parameters with the error object before any export text', async () => {
    expect((await get('ex/export?format=xml')).statusCode).toBe(400);
    // The list parameters fail as the list's do (the status is the list's; decisions.md).
    for (const qs of ['filter=not-json', 'sort=value.n|SIDEWAYS', 'query=value.n:[1 TO']) {
      const res = await get(`ex/export?format=csv&${qs}`);
      const list = await get(`ex?${qs}`);
      expect(list.statusCode, qs).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, qs).toBe(list.statusCode);
      expect(res.json(), qs).toEqual(list.json());
    }
    expect((await t.request({ method: 'GET', url: `${STORE}/ex/export` })).statusCode).toBe(401);
  });
});

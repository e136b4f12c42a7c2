// Pages concatenate to the full list with no duplicates or gaps, also with hidden items interleaved.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { apiKeyCaller, client, OWNER_KEY, STORAGE_CONFIG } from './storage-kit.js';

describeEachEngine('storage paging', (engine) => {
  let t: TestApp;
  let owner: ReturnType<typeof client>;
  let kim: ReturnType<typeof client>;
  const visible: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(engine, STORAGE_CONFIG);
    owner = client(t, apiKeyCaller('owner', OWNER_KEY));
    kim = client(t, apiKeyCaller('kim', 'k-kim-0123456789'));
    // 90 items; every third is hidden from kim. Groups repeat so sorting by group has many ties.
    for (let i = 0; i < 90; i++) {
      const hidden = i % 3 === 1;
      const res = await owner.put('paged', `p-${String(i).padStart(3, '0')}`, {
        value: { n: i, group: i % 4, name: `item ${i}` },
        readRestriction: hidden ? { roles: ['OWNER'] } : { roles: ['OWNER', 'roleA'] },
        writeRestriction: { roles: ['OWNER'] },
      });
      if (res.statusCode !== 200) throw new Error(res.body);
      if (!hidden) visible.push(`p-${String(i).padStart(3, '0')}`);
    }
  });
  afterAll(() => t.close());

  async function allPages(c: ReturnType<typeof client>, size: number, params: Record<string, string> = {}) {
    const ids: string[] = [];
    for (let start = 0; ; start += size) {
      const res = await c.list('paged', { ...params, start, limit: size });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.total).toBe(c === kim ? 60 : 90);
      ids.push(...body.items.map((i: any) => i.id));
      if (body.items.length < size) {
        expect(start + body.items.length).toBe(body.total);
        break;
      }
      expect(body.items).toHaveLength(size);
    }
    return ids;
  }

  it.each([1, 7, 13, 60, 1000])(
    'pages of %i in default order are full and concatenate to the readable list',
    async (size) => {
      expect(await allPages(kim, size)).toEqual(visible);
    },
  );

  it('the owner sees every item', async () => {
    expect(await allPages(owner, 25)).toHaveLength(90);
  });

  it.each([
    ['value.group|ASC', 7],
    ['value.group|DESC,value.name|ASC', 11],
    ['value.n|DESC', 9],
    ['nonexistent|ASC', 8],
  ])(
    'pages of the list sorted by %s (size %i) are full and concatenate with no duplicates or gaps',
    async (sort, size) => {
      const pages = await allPages(kim, size, { sort });
      const full = (await kim.list('paged', { sort, limit: 1000 })).json().items.map((i: any) => i.id);
      expect(pages).toEqual(full);
      expect(new Set(pages).size).toBe(60);
      expect([...pages].sort()).toEqual([...visible].sort());
    },
  );

  it('a filter keeps pages full and totals true with hidden items interleaved', async () => {
    const filter = JSON.stringify([{ property: 'value.group', operator: 'in', value: [1, 2] }]);
    const ids: string[] = [];
    let total = -1;
    for (let start = 0; ; start += 4) {
      const body = (await kim.list('paged', { filter, sort: 'value.n|DESC', start, limit: 4 })).json();
      total = body.total;
      ids.push(...body.items.map((i: any) => i.id));
      if (body.items.length < 4) break;
    }
    const expected = visible.filter((id) => [1, 2].includes(Number(id.slice(2)) % 4)).reverse();
    expect(total).toBe(expected.length);
    expect(ids).toEqual(expected);
  });
});

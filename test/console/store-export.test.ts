// Export from a store page: the CSV and JSON downloads of the current filter are, byte for byte, what the API's
// streamed export answers the same user for the same filter.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeWithBrowser } from '../helpers/browser.js';
import { consoleFixture, pagerText, uniqueStore } from '../helpers/console-fixture.js';

const STORAGE = '/cxf/svc-core/storage/store';

describeWithBrowser('console export [sqlite]', () => {
  const f = consoleFixture('store-export');

  it('downloads the CSV and JSON export of the current filter, equal to the API answer', async (ctx) => {
    const doc = (await f.apiCall('GET', '/docs/json')).body as { paths: Record<string, unknown> };
    if (!doc.paths[`${STORAGE}/{storeId}/export`]) {
      console.warn('store export endpoint not merged yet: the export journey is skipped');
      ctx.skip();
    }
    const store = uniqueStore('export');
    for (let i = 0; i < 8; i++) {
      const res = await f.apiCall('PUT', `${STORAGE}/${store}/e${i}`, {
        name: `Export ${i}`,
        value: { n: i, note: i === 3 ? 'comma, "quote"' : 'plain' },
        // e7 only support may read: carla's export must not have it.
        readRestriction: { organisations: [i === 7 ? 'support' : 'sales'] },
        writeRestriction: { organisations: ['sales'] },
      });
      expect(res.status).toBe(200);
    }
    const { context, page } = await f.openAs('carla', `/stores/${store}`);
    await expect.poll(() => pagerText(page)).toBe('1–7 of 7');
    const filter = '[{"property": "value.n", "operator": "gte", "value": 2}]';
    await page.getByLabel('Filter (JSON)').fill(filter);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => pagerText(page)).toBe('1–5 of 5');

    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session')!;
    for (const format of ['csv', 'json'] as const) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: `Export ${format.toUpperCase()}` }).click(),
      ]);
      const file = readFileSync((await download.path())!, 'utf8');
      const api = await fetch(
        `${f.base}${STORAGE}/${store}/export?format=${format}&filter=${encodeURIComponent(filter)}`,
        { headers: { cookie: `${cookie.name}=${cookie.value}` } },
      );
      expect(api.status).toBe(200);
      expect(file).toBe(await api.text());
      expect(file).toContain('e2');
      expect(file).not.toContain('e7');
      expect(file).not.toMatch(/\be[01]\b/);
    }
    await context.close();
  }, 180_000);
});

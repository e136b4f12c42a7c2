// The store pages in a real browser against the real service (SQLite): the stores list, creating, editing and
// deleting items with restrictions (one and several), the table and its total following, filter, query and sort.
import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/axe.js';
import { describeWithBrowser } from '../helpers/browser.js';
import { consoleFixture, pagerText, tableIds, uniqueStore } from '../helpers/console-fixture.js';

const SALES = { organisations: ['sales'] };

describeWithBrowser('console store pages [sqlite]', () => {
  const f = consoleFixture('store-items');
  const STORAGE = '/cxf/svc-core/storage/store';

  async function seed(store: string, items: Array<{ id: string; name: string; value: unknown; read?: object }>) {
    for (const item of items) {
      const res = await f.apiCall('PUT', `${STORAGE}/${store}/${item.id}`, {
        name: item.name,
        value: item.value,
        readRestriction: item.read ?? SALES,
        writeRestriction: SALES,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  }

  describe('stores list', () => {
    it('lists the stores with the counts the user may read, and opens one', async () => {
      const store = uniqueStore('shelf');
      await seed(store, [
        { id: 'a', name: 'A', value: 1 },
        { id: 'b', name: 'B', value: 2 },
        { id: 'hidden', name: 'H', value: 3, read: { organisations: ['support'] } },
      ]);
      const { context, page } = await f.openAs('carla', '/stores');
      const row = page.getByRole('row', { name: new RegExp(store) });
      await row.waitFor();
      expect(await row.getByRole('cell').nth(1).textContent()).toBe('2');
      await expectAccessible(page, 'stores page');
      await row.getByRole('link', { name: store }).click();
      await page.getByRole('heading', { name: `Store ${store}` }).waitFor();
      await expect.poll(() => pagerText(page)).toBe('1–2 of 2');
      await context.close();
    }, 180_000);
  });

  it('creates, edits and deletes items with restrictions; the table and the total follow', async () => {
    const store = uniqueStore('orders');
    await seed(store, [
      { id: 'o1', name: 'Order 1', value: { total: 50, status: 'open' } },
      { id: 'o2', name: 'Order 2', value: { total: 150, status: 'paid' } },
      { id: 'o3', name: 'Order 3', value: { total: 250, status: 'open' } },
    ]);
    const { context, page } = await f.openAs('carla', `/stores/${store}`);
    await expect.poll(() => pagerText(page)).toBe('1–3 of 3');
    await expectAccessible(page, 'store page');

    // Create: a JSON syntax error is shown and nothing is sent until it is fixed.
    await page.getByRole('button', { name: 'New item' }).click();
    const dialog = page.getByRole('dialog', { name: 'New item' });
    await dialog.locator('.cm-editor').waitFor();
    await dialog.getByLabel('Item id').fill('o4');
    await dialog.getByLabel('Name', { exact: true }).fill('Order 4');
    const value = dialog.getByRole('textbox', { name: 'Value' });
    await value.fill('{"total": }');
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/JSON syntax error/);
    expect(await dialog.getByRole('button', { name: 'Create' }).isDisabled()).toBe(true);
    await expectAccessible(page, 'item editor');
    await value.fill('{"total": 400, "status": "open"}');
    const read = dialog.getByRole('group', { name: 'Read restriction' });
    await read.getByLabel('Organisations').fill('sales, support');
    const write = dialog.getByRole('group', { name: 'Write restriction' });
    await write.getByLabel('User').fill('carla');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => pagerText(page)).toBe('1–4 of 4');
    expect(await tableIds(page)).toContain('o4');
    const created = await f.apiCall('GET', `${STORAGE}/${store}/o4`);
    expect(created.body).toMatchObject({
      name: 'Order 4',
      value: { total: 400, status: 'open' },
      readRestriction: { organisations: ['sales', 'support'] },
      writeRestriction: { user: 'carla' },
      createdBy: 'carla',
    });

    // Edit the value; the table shows it and the API has it.
    await page.getByRole('button', { name: 'Edit o4' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit item o4' });
    await edit.locator('.cm-editor').waitFor();
    expect(await edit.getByLabel('Item id').inputValue()).toBe('o4');
    await edit.getByRole('textbox', { name: 'Value' }).fill('{"total": 410, "status": "paid"}');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: '{"total":410,"status":"paid"}' }).waitFor();
    expect((await f.apiCall('GET', `${STORAGE}/${store}/o4`)).body.value).toEqual({ total: 410, status: 'paid' });

    // A write the API refuses shows its message: dave's item, which carla may read but not write.
    await f.apiCall('PUT', `${STORAGE}/${store}/o5`, {
      name: 'Order 5',
      value: 5,
      readRestriction: SALES,
      writeRestriction: { user: 'dave' },
    });
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('button', { name: 'Edit o5' }).click();
    const refused = page.getByRole('dialog', { name: 'Edit item o5' });
    await refused.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => refused.getByRole('alert').textContent()).toContain('writeRestriction');
    await refused.getByRole('button', { name: 'Cancel' }).click();

    // Delete one, with a confirmation.
    await page.getByRole('button', { name: 'Delete o4' }).click();
    const confirm = page.getByRole('dialog', { name: /Delete item o4/ });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => pagerText(page)).toBe('1–4 of 4');
    expect(await tableIds(page)).not.toContain('o4');
    expect((await f.apiCall('GET', `${STORAGE}/${store}/o4`)).status).toBe(404);

    // Bulk delete of the selected rows.
    await page.getByRole('checkbox', { name: 'Select o1' }).check();
    await page.getByRole('checkbox', { name: 'Select o3' }).check();
    await page.getByRole('button', { name: 'Delete selected (2)' }).click();
    await page
      .getByRole('dialog', { name: /Delete 2 selected/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await expect.poll(() => pagerText(page)).toBe('1–2 of 2');
    expect(await tableIds(page)).toEqual(['o2', 'o5']);
    await context.close();
  }, 180_000);

  it('filters with the storage filter JSON and the Lucene query, sorts by a column, pages with the total', async () => {
    const store = uniqueStore('invoices');
    const items = Array.from({ length: 12 }, (_, i) => ({
      id: `inv-${String(i).padStart(2, '0')}`,
      name: `Invoice ${String.fromCharCode(76 - i)}`,
      value: { total: i * 10, status: i % 3 === 0 ? 'open' : 'paid' },
    }));
    await seed(store, items);
    const { context, page } = await f.openAs('carla', `/stores/${store}`);
    await expect.poll(() => pagerText(page)).toBe('1–12 of 12');

    // Paging.
    await page.getByLabel('Page size').selectOption('10');
    await expect.poll(() => pagerText(page)).toBe('1–10 of 12');
    // While the next page loads the previous one stays on screen, and the pager describes the rows shown: the next
    // page's answer is held back (the real service answers it; only its delivery waits) until both are checked.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let asked = false;
    const nextPage = /\/storage\/store\/[^/?]+\?(.*&)?start=10(&|$)/;
    await page.route(nextPage, async (route) => {
      asked = true;
      const answer = await route.fetch();
      await held;
      await route.fulfill({ response: answer });
    });
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => asked).toBe(true);
    expect(await pagerText(page)).toBe('1–10 of 12');
    expect(await tableIds(page)).toEqual(items.slice(0, 10).map((i) => i.id));
    release();
    await expect.poll(() => pagerText(page)).toBe('11–12 of 12');
    expect(await tableIds(page)).toEqual(['inv-10', 'inv-11']);
    await page.unroute(nextPage);

    // A filter that is not JSON is refused on the page; nothing changes.
    const filter = page.getByLabel('Filter (JSON)');
    await filter.fill('[{"property": "value.total"');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/not valid JSON/);
    expect(await pagerText(page)).toBe('11–12 of 12');

    const filterText = '[{"property": "value.total", "operator": "gte", "value": 60}]';
    await filter.fill(filterText);
    await page.getByRole('button', { name: 'Apply' }).click();
    const api = await f.apiCall('GET', `${STORAGE}/${store}?filter=${encodeURIComponent(filterText)}`);
    await expect.poll(() => pagerText(page)).toBe(`1–${api.body.total} of ${api.body.total}`);
    expect(await tableIds(page)).toEqual(api.body.items.map((i: { id: string }) => i.id));

    // The Lucene query string on top of the filter.
    await page.getByLabel('Query').fill('value.status:open');
    await page.getByRole('button', { name: 'Apply' }).click();
    const both = await f.apiCall(
      'GET',
      `${STORAGE}/${store}?filter=${encodeURIComponent(filterText)}&query=${encodeURIComponent('value.status:open')}`,
    );
    expect(both.body.total).toBe(2);
    await expect.poll(() => pagerText(page)).toBe('1–2 of 2');
    expect(await tableIds(page)).toEqual(both.body.items.map((i: { id: string }) => i.id));

    // Sort by name: ascending, then descending (the header says which).
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => pagerText(page)).toBe('1–10 of 12');
    await page.getByRole('button', { name: 'Name' }).click();
    await expect.poll(() => tableIds(page).then((ids) => ids[0])).toBe('inv-11');
    expect(await page.getByRole('columnheader', { name: /Name/ }).getAttribute('aria-sort')).toBe('ascending');
    await page.getByRole('button', { name: 'Name' }).click();
    await expect.poll(() => tableIds(page).then((ids) => ids[0])).toBe('inv-00');
    expect(await page.getByRole('columnheader', { name: /Name/ }).getAttribute('aria-sort')).toBe('descending');
    await context.close();
  }, 180_000);
});

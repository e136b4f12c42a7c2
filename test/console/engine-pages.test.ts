// The Flow and Engine data pages in a real browser against the real service (SQLite): a reachable and an unreachable
// flow instance with a failed proxied call among the last errors; templates, assets, versions, a template's image and
// a child asset written through the data management API and read on the page as an engine user; who sees what.
// axe-core on every page.
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/axe.js';
import {
  describeWithBrowser,
  ensureConsoleBuilt,
  launchBrowser,
  listen,
  logIn,
  screenshotsOnFailure,
} from '../helpers/browser.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startUpstream, type Upstream } from '../flow/upstream.js';

const TENANT = 'default';
const ADA = { loginName: 'ada', password: 'ada-password-1', roles: ['ADMIN'] };
const PAUL = { loginName: 'paul', password: 'paul-password-1', roles: ['clerk'] };
const KEY = 'k-console-engine-robot-0001';
const DM_USER = { name: 'dm', password: 'dm-password-1', groups: ['DataManagement'] };
const WORKER = { name: 'worker', password: 'worker-password-1', groups: ['Operations'] };
const DM_PATH = '/engine/servlet/UploadServlet/api_protocol';

/** A real 64 x 64 PNG, as base64. */
function png(): string {
  const image = new PNG({ width: 64, height: 64 });
  for (let i = 0; i < image.data.length; i++) image.data[i] = i % 4 === 3 ? 255 : (i * 7) & 0xff;
  return PNG.sync.write(image).toString('base64');
}

describeWithBrowser('console flow and engine data pages [sqlite]', () => {
  let t: TestApp;
  let upstream: Upstream;
  let base: string;
  let browser: Browser;
  const shots = screenshotsOnFailure('engine-pages');

  beforeAll(async () => {
    ensureConsoleBuilt();
    upstream = await startUpstream();
    t = await startTestApp('sqlite', {
      tenants: [{ name: TENANT, users: [ADA, PAUL], apiKeys: [{ name: 'robot', key: KEY, roles: ['clerk'] }] }],
      engine: {
        users: [
          { ...DM_USER, roles: [] },
          { ...WORKER, roles: [] },
        ],
      },
      flow: {
        instances: [
          { id: 'main', url: `${upstream.url}/base` },
          { id: 'dead', url: 'http://127.0.0.1:1/base' },
        ],
      },
    });
    base = await listen(t);
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await upstream?.close();
  });

  async function openAs(user: { loginName: string; password: string }, path: string, heading: string) {
    const context = shots.track(await browser.newContext());
    const page = await context.newPage();
    await page.goto(`${base}/console/#${path}`);
    await logIn(page, TENANT, user.loginName, user.password);
    await page.getByRole('heading', { name: heading, exact: true }).waitFor();
    return { context, page };
  }

  const dm = async (body: unknown): Promise<any> => {
    const res = await fetch(`${base}${DM_PATH}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${DM_USER.name}:${DM_USER.password}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${JSON.stringify(body).slice(0, 80)}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  const connect = async (page: Page, user: { name: string; password: string }) => {
    await page.getByLabel('Engine user').fill(user.name);
    await page.getByLabel('Engine password').fill(user.password);
    await page.getByRole('button', { name: 'Connect' }).click();
  };

  it('the Flow page shows a reachable and an unreachable instance and a failed proxied call', async () => {
    const failed = await fetch(`${base}/cxf/svc-flow/flow/dead/engine-rest/task?secret=1`, {
      headers: { 'x-apikey': KEY },
    });
    expect(failed.status).toBe(502);
    const { context, page } = await openAs(ADA, '/flow-instances', 'Flow instances');
    const row = (id: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: id }) });
    await expect.poll(() => row('main').textContent()).toContain('Reachable (HTTP 200');
    expect(await row('main').textContent()).toContain(upstream.url);
    expect(await row('dead').textContent()).toContain('Unreachable (ECONNREFUSED)');
    const errors = page.getByRole('table', { name: 'Last errors of dead' });
    const errorRow = errors.getByRole('row').filter({ hasText: '/base/engine-rest/task' });
    expect(await errorRow.textContent()).toMatch(/GET\/base\/engine-rest\/task502ECONNREFUSED$/);
    expect(await page.getByText('No recent errors of main.').count()).toBe(1);
    expect(await page.content()).not.toContain('secret=1');
    await expectAccessible(page, 'flow instances page');
    await context.close();
  }, 180_000);

  it('the Engine data page lists a template and its assets, versions, image and child asset', async () => {
    await dm({
      requests: [
        { context: 'Template', method: 'create', parameters: { template: { customId: 'part', name: 'Part' } } },
        {
          context: 'Template',
          method: 'create',
          parameters: {
            template: {
              customId: 'pump',
              name: 'Pump',
              attributes: [{ key: 'serial', type: 'string' }],
              childTemplates: ['part'],
            },
          },
        },
        { context: 'Template', method: 'setImage', parameters: { customId: 'pump', image: png() } },
      ],
    });
    const created = await dm({
      context: 'Asset',
      method: 'create',
      parameters: {
        templateCustomId: 'pump',
        asset: { customId: 'P-1', displayName: 'Pump 1' },
        versionComment: 'installed',
      },
    });
    await dm({
      context: 'Asset',
      method: 'update',
      parameters: {
        templateCustomId: 'pump',
        asset: { customId: 'P-1', attributes: { serial: 'A100' } },
        versionComment: 'serial set',
      },
    });
    await dm({
      context: 'Asset',
      method: 'create',
      parameters: {
        templateCustomId: 'part',
        asset: { customId: 'C-1', displayName: 'Valve', parentId: created.asset.id },
      },
    });

    const { context, page } = await openAs(PAUL, '/engine-data', 'Engine data');
    await expectAccessible(page, 'engine data page (connect form)');
    await connect(page, DM_USER);
    const pumpRow = page.getByRole('row').filter({ hasText: 'Pump' }).filter({ hasText: 'serial' });
    await pumpRow.waitFor();
    // The template's image is the API's PNG, decoded by the browser.
    const image = page.getByRole('img', { name: 'Template pump' });
    await image.waitFor();
    // (`img` is the page's HTMLImageElement; the test's own types have no DOM.)
    const decoded = await image.evaluate((img) => {
      const element = img as unknown as { complete: boolean; naturalWidth: number };
      return element.complete && element.naturalWidth;
    });
    expect(decoded).toBe(64);
    expect(await page.getByRole('row').filter({ hasText: 'Part' }).getByText('none').count()).toBe(1);

    await page.getByRole('button', { name: 'Assets of pump' }).click();
    const assets = page.getByRole('table', { name: 'Assets of template pump' });
    await assets.getByRole('row').filter({ hasText: 'P-1' }).filter({ hasText: 'A100' }).waitFor();
    await page.getByRole('button', { name: 'Open P-1' }).click();
    const versions = page.getByRole('table', { name: 'Versions of P-1' });
    await versions.getByRole('row').filter({ hasText: 'serial set' }).waitFor();
    expect(await versions.getByRole('row').count()).toBe(3); // the header and two versions
    expect(await versions.getByRole('row').nth(1).textContent()).toContain('active');
    expect(await versions.getByRole('row').nth(2).textContent()).toContain('installed');
    const children = page.getByRole('table', { name: 'Child assets of P-1' });
    await children.getByRole('row').filter({ hasText: 'C-1' }).filter({ hasText: 'Valve' }).waitFor();
    await expectAccessible(page, 'engine data page (template, asset, versions, child asset)');

    // Nothing of it is written anywhere: the password is gone with the page; a reload asks again.
    await page.reload();
    await page.getByLabel('Engine user').waitFor();
    expect(await page.getByRole('table').count()).toBe(0);
    await context.close();
  }, 180_000);

  it('a non-admin sees no Flow page, and an engine user outside DataManagement reads no engine data', async () => {
    const { context, page } = await openAs(PAUL, '/engine-data', 'Engine data');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Engine data' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Flow' }).count()).toBe(0);
    // By keyboard alone: the label's field, Tab to the password, Enter submits.
    await page.getByLabel('Engine user').focus();
    await page.keyboard.type(WORKER.name);
    await page.keyboard.press('Tab');
    await page.keyboard.type(WORKER.password);
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'Requires group DataManagement' }).waitFor();
    await connect(page, { name: 'dm', password: 'wrong-password' });
    await page.getByRole('alert').filter({ hasText: 'Authentication failed' }).waitFor();
    expect(await page.getByRole('table').count()).toBe(0);
    // The console session survived the engine's 401.
    expect(await page.getByRole('button', { name: 'Log out' }).count()).toBe(1);
    await page.goto(`${base}/console/#/flow-instances`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    // The API stays the authority: the same call from this session is refused.
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session')!;
    const res = await fetch(`${base}/cxf/svc-flow/instances`, { headers: { cookie: `svc_session=${cookie.value}` } });
    expect(res.status).toBe(403);
    await context.close();
  }, 180_000);
});

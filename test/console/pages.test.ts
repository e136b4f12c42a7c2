// The notifications, forms, audit and maintenance pages in a real browser against the real service (SQLite): a
// notification arriving live with the bell count, sending / editing / deleting as NOTIFICATION_ADMIN, the forms diff,
// the audit filter and its CSV export, the maintenance switch seen by another user, and a non-admin who sees none of
// the admin controls. axe-core on every page.
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
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

const TENANT = 'default';
const NORA = { loginName: 'nora', password: 'nora-password-1', roles: ['ADMIN', 'NOTIFICATION_ADMIN', 'FORMS_ADMIN'] };
const PAUL = { loginName: 'paul', password: 'paul-password-1', roles: ['clerk'], organisations: ['sales'] };
const ROBOT_KEY = 'k-console-pages-robot-0001';
export const PAGES_CONFIG = {
  tenants: [
    {
      name: TENANT,
      users: [NORA, PAUL],
      apiKeys: [{ name: 'robot', key: ROBOT_KEY, roles: ['NOTIFICATION_ADMIN', 'FORMS_ADMIN', 'ADMIN'] }],
    },
  ],
};
const N = '/cxf/svc-core/notification';

describeWithBrowser('console pages journeys [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  const shots = screenshotsOnFailure('pages');

  beforeAll(async () => {
    ensureConsoleBuilt();
    t = await startTestApp('sqlite', PAGES_CONFIG);
    base = await listen(t);
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A fresh browser context logged in as `user`, on `path`. */
  async function openAs(user: { loginName: string; password: string }, path: string, heading: string) {
    const context = shots.track(await browser.newContext({ acceptDownloads: true }));
    const page = await context.newPage();
    await page.goto(`${base}/console/#${path}`);
    await logIn(page, TENANT, user.loginName, user.password);
    await page.getByRole('heading', { name: heading, exact: true }).waitFor();
    return { context, page };
  }

  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-apikey': ROBOT_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const bellCount = (page: Page) => page.getByTestId('bell-count').textContent();
  const inboxRow = (page: Page, subject: string) =>
    page.getByRole('table', { name: 'Inbox' }).getByRole('row').filter({ hasText: subject });

  it('a notification arrives live in the inbox of a plain user, with the bell count', async () => {
    const { context, page } = await openAs(PAUL, '/notifications', 'Notifications');
    await expect.poll(() => bellCount(page)).toBe('0');
    await page.getByText('No notifications.').waitFor();
    await expectAccessible(page, 'notifications page (empty inbox)');

    // Live delivery: the stream is open (the bell says so) before the write, and the page is not reloaded.
    await waitForStream(page);
    const subject = `Invoice ${Date.now()} approved`;
    await api('POST', N, { subject, message: 'Finance approved it.', recipients: ['clerk'], recipientsType: 'role' });
    await inboxRow(page, subject).waitFor();
    await expect.poll(() => bellCount(page)).toBe('1');
    expect(await page.getByRole('link', { name: 'Notifications, 1' }).count()).toBe(1);

    // A notification for someone else never shows.
    await api('POST', N, { subject: 'For bob only', message: 'x', recipients: ['bob'], recipientsType: 'user' });
    const marker = `Second for clerks ${Date.now()}`;
    await api('POST', N, { subject: marker, message: 'x', recipients: ['sales'], recipientsType: 'organisation' });
    await inboxRow(page, marker).waitFor();
    expect(await page.getByText('For bob only').count()).toBe(0);
    await expect.poll(() => bellCount(page)).toBe('2');
    await expectAccessible(page, 'notifications page (inbox)');
    await context.close();
  }, 180_000);

  it('a non-admin sees neither the admin pages nor the admin controls', async () => {
    const { context, page } = await openAs(PAUL, '/notifications', 'Notifications');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Notifications' }).waitFor();
    for (const name of ['Forms', 'Audit', 'Maintenance']) expect(await nav.getByRole('link', { name }).count()).toBe(0);
    await inboxRow(page, 'Invoice').first().waitFor();
    expect(await page.getByRole('heading', { name: 'Send a notification' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Edit|Delete) / }).count()).toBe(0);
    for (const path of ['/audit', '/maintenance', '/forms', '/forms/contact']) {
      await page.goto(`${base}/console/#${path}`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    }
    // The API stays the authority: the same calls from this session are refused.
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session')!;
    const audit = await fetch(`${base}/cxf/svc-core/audit`, { headers: { cookie: `svc_session=${cookie.value}` } });
    expect(audit.status).toBe(403);
    await context.close();
  }, 180_000);

  it('an admin sends, edits and deletes a notification; the recipient sees each change live', async () => {
    const paul = await openAs(PAUL, '/notifications', 'Notifications');
    const nora = await openAs(NORA, '/notifications', 'Notifications');
    const { page } = nora;
    await page.getByRole('heading', { name: 'Send a notification' }).waitFor();
    await expectAccessible(page, 'notifications page (admin)');
    await waitForStream(paul.page);
    const before = Number(await bellCount(paul.page));

    const subject = `Maintenance tonight ${Date.now()}`;
    await page.getByLabel('Subject').fill(subject);
    await page.getByLabel('Message').fill('Down from 22:00 to 23:00.');
    await page.getByLabel('Recipients are').selectOption('role');
    await page.getByLabel('Priority').selectOption('10');
    await page.getByLabel('Recipients', { exact: true }).fill('clerk, auditor');
    await page.getByRole('button', { name: 'Send notification' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Sent “${subject}”.` })
      .waitFor();
    await inboxRow(page, subject).waitFor(); // the admin sees every notification of the tenant

    await inboxRow(paul.page, subject).waitFor();
    await expect.poll(() => bellCount(paul.page)).toBe(String(before + 1));
    const stored = (await api('GET', `${N}?limit=1000`)).items.find((n: { subject: string }) => n.subject === subject);
    expect(stored).toMatchObject({ priority: 10, recipientsType: 'role', recipients: ['clerk', 'auditor'] });
    expect(stored.originator).toBe('nora');

    // Edit: the recipient's row changes live.
    await page.getByRole('button', { name: `Edit ${subject}` }).click();
    const edited = `${subject}, moved`;
    await page.getByLabel('Subject').fill(edited);
    await page.getByRole('button', { name: 'Save notification' }).click();
    await inboxRow(paul.page, edited).waitFor();
    expect(await api('GET', `${N}/${encodeURIComponent(stored.id)}`)).toMatchObject({
      version: 2,
      subject: edited,
      priority: 10,
      recipientsType: 'role',
      recipients: ['clerk', 'auditor'],
    });

    // A refused write shows the API's message and changes nothing.
    await page.getByLabel('Subject').fill('No recipients');
    await page.getByLabel('Message').fill('x');
    await page.getByLabel('Recipients', { exact: true }).fill(' , ');
    await page.getByLabel('Recipients', { exact: true }).evaluate((el) => el.removeAttribute('required'));
    await page.getByRole('button', { name: 'Send notification' }).click();
    await page.getByRole('alert').filter({ hasText: 'recipients' }).waitFor();
    expect(await page.getByText('No recipients', { exact: true }).count()).toBe(0);

    // Delete, confirmed: gone for the recipient, the bell counts down.
    await page.getByRole('button', { name: `Delete ${edited}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Deleted “${edited}”.` })
      .waitFor();
    await expect.poll(() => inboxRow(paul.page, edited).count()).toBe(0);
    await expect.poll(() => bellCount(paul.page)).toBe(String(before));
    await paul.context.close();
    await nora.context.close();
  }, 180_000);

  it('shows the versions of a form, a version as formatted JSON, and a side-by-side diff', async () => {
    const formId = `contact-${Date.now()}`;
    const v1 = { components: [{ type: 'textfield', key: 'email', label: 'E-mail' }] };
    const v2 = {
      metaData: { title: 'Contact us' },
      components: [
        { type: 'textfield', key: 'email', label: 'Your e-mail' },
        { type: 'textarea', key: 'message', label: 'Message', rows: 3 },
      ],
    };
    await api('POST', `/cxf/svc-forms/forms/${formId}`, { name: 'Contact', config: v1 });
    const latest = await api('PUT', `/cxf/svc-forms/forms/${formId}/1`, { name: 'Contact', config: v2 });

    const { context, page } = await openAs(NORA, '/forms', 'Forms');
    await expectAccessible(page, 'forms list');
    await page.getByRole('link', { name: formId }).click();
    await page.getByRole('heading', { name: `Form ${formId}` }).waitFor();
    await page.getByRole('heading', { name: 'Definition of version 2' }).waitFor();
    const shown = await page.getByRole('region', { name: 'Definition of version 2' }).textContent();
    expect(JSON.parse(shown ?? '')).toEqual(latest.config);
    expect(shown?.trim()).toBe(JSON.stringify(latest.config, null, 2));

    await page.getByRole('button', { name: 'Show version 1' }).click();
    await page.getByRole('heading', { name: 'Definition of version 1' }).waitFor();

    await page.getByLabel('Left version').selectOption('1');
    await page.getByLabel('Right version').selectOption('2');
    await page.getByRole('button', { name: 'Compare' }).click();
    const diff = page.getByRole('region', { name: 'Differences' });
    await diff.waitFor();
    const removed = await diff.locator('[data-change="removed"]').allTextContents();
    const added = await diff.locator('[data-change="added"]').allTextContents();
    expect(removed.some((l) => l.includes('"label": "E-mail"'))).toBe(true);
    expect(added.some((l) => l.includes('"label": "Your e-mail"'))).toBe(true);
    expect(added.some((l) => l.includes('"title": "Contact us"'))).toBe(true);
    expect(added.some((l) => l.includes('"key": "message"'))).toBe(true);
    expect(removed.some((l) => l.includes('"key": "message"'))).toBe(false);
    await expectAccessible(page, 'form page with a diff');
    await context.close();
  }, 180_000);

  it('filters the audit log and exports the filter as CSV matching the API', async () => {
    // Two refused logins of paul and one of nora: audit rows to filter.
    for (const [user, password] of [
      ['paul', 'wrong-1'],
      ['paul', 'wrong-2'],
      ['nora', 'wrong-3'],
    ]) {
      const res = await fetch(`${base}/cxf/svc-core/authentication`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ tenantname: TENANT, username: user, password }),
      });
      expect(res.status).toBe(401);
    }
    const { context, page } = await openAs(NORA, '/audit', 'Audit log');
    await page.getByRole('table', { name: 'Audit records' }).waitFor();
    await expectAccessible(page, 'audit page');

    await page.getByLabel('User').fill('paul');
    await page.getByLabel('Outcome').selectOption('failure');
    await page.getByLabel('Action').fill('login');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const expected = await api('GET', '/cxf/svc-core/audit?actor=paul&outcome=failure&action=login');
    expect(expected.total).toBe(2);
    const rows = page.getByRole('table', { name: 'Audit records' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    for (const text of await rows.allTextContents()) expect(text).toMatch(/paul.*login.*failure/);
    await page.getByText('1–2 of 2').waitFor();

    // A time range in the future matches nothing.
    await page.getByLabel('From').fill('2999-01-01T00:00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No audit record matches.').waitFor();
    await page.getByLabel('From').fill('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => rows.count()).toBe(2);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,at,actor,action,outcome,remoteAddress,userAgent,detail');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 5))).toEqual(
      expected.items.map((i: Record<string, string>) => [i.id, i.at, i.actor, i.action, i.outcome]),
    );
    await context.close();
  }, 180_000);

  it('the maintenance switch of an admin shows a banner to another user until it is off', async () => {
    const paul = await openAs(PAUL, '/notifications', 'Notifications');
    const nora = await openAs(NORA, '/maintenance', 'Maintenance');
    await expectAccessible(nora.page, 'maintenance page');
    const toggle = nora.page.getByRole('switch', { name: 'Maintenance mode' });
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    await waitForStream(paul.page);

    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    const banner = paul.page.getByRole('status').filter({ hasText: 'Maintenance:' });
    await banner.waitFor({ timeout: 15_000 });
    const refused = await fetch(`${base}${N}`, { headers: { 'x-apikey': ROBOT_KEY } });
    expect(refused.status).toBe(503);
    const apiMessage = ((await refused.json()) as { error: { message: string } }).error.message;
    expect(await banner.textContent()).toContain(apiMessage);
    await expectAccessible(paul.page, 'notifications page in maintenance');
    await expect
      .poll(() =>
        (api('GET', '/cxf/svc-core/notification-maintenance') as Promise<{ active: boolean }>).then((m) => m.active),
      )
      .toBe(true);

    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('false');
    await banner.waitFor({ state: 'detached', timeout: 15_000 });
    // Live again: a new notification reaches the other user without a reload.
    await waitForStream(paul.page);
    const subject = `Back after maintenance ${Date.now()}`;
    await api('POST', N, { subject, message: 'x', recipients: ['paul'], recipientsType: 'user' });
    await inboxRow(paul.page, subject).waitFor();
    await paul.context.close();
    await nora.context.close();
  }, 180_000);
});

/** Waits until the page's notification stream is open (the service registers the subscriber before answering). */
async function waitForStream(page: Page): Promise<void> {
  await page.locator('a.bell[data-stream="live"]').waitFor({ timeout: 15_000 });
}

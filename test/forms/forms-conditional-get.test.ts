// Conditional GETs of the forms (issue 47 goal 3): every read and the list answer an ETag from a change count kept in
// the write's transaction (per form, per tenant); If-None-Match naming it answers 304 without a body. A change of the
// form changes its tags and the list's; a change of another form leaves the form's tags; another tenant's, all.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, login, sessionHeaders, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  ADMIN_KEY,
  ALICE,
  addVersion,
  call,
  FORMS_CONFIG,
  formBody,
  OTHER_TENANT_ADMIN_KEY,
} from './forms-fixtures.js';

const READS = ['/forms/tagged', '/forms/tagged/1', '/config/tagged', '/config/tagged/1', '/history/tagged'];

describeEachEngine('forms conditional GETs', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(engine, FORMS_CONFIG);
    await addVersion(t, 'tagged');
    await addVersion(t, 'bystander');
  });
  afterAll(() => t.close());

  const get = (url: string, tag?: string, key = ADMIN_KEY) =>
    call(t, 'GET', url, { key, headers: tag ? { 'if-none-match': tag } : {} });

  function tagged(res: LightMyRequestResponse): string {
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(String(res.headers.etag)).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    return String(res.headers.etag);
  }

  async function tagsOf(urls: string[]): Promise<string[]> {
    return Promise.all(urls.map(async (url) => tagged(await get(url))));
  }

  async function expectNotModified(url: string, tag: string): Promise<void> {
    const res = await get(url, tag);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers.etag).toBe(tag);
  }

  it('answers 304 without a body for the tag of each read and of the list, by API key and by session', async () => {
    const urls = [...READS, '/forms'];
    const tags = await tagsOf(urls);
    expect(new Set(tags).size).toBe(urls.length);
    for (const [i, url] of urls.entries()) await expectNotModified(url, tags[i]);
    const s = await login(t, 'acme', ALICE.loginName, ALICE.password);
    const bySession = await t.request({
      method: 'GET',
      url: '/cxf/svc-forms/forms/tagged',
      headers: { ...sessionHeaders(s, false), 'if-none-match': tags[0] },
    });
    expect(bySession.statusCode).toBe(304);
  });

  it("keeps a form's tags through another form's change, and changes them and the list's with its own", async () => {
    const before = await tagsOf(READS);
    const listBefore = tagged(await get('/forms'));
    await addVersion(t, 'bystander', formBody('Other'));
    for (const [i, url] of READS.entries()) await expectNotModified(url, before[i]);
    const list = tagged(await get('/forms', listBefore));
    expect(list).not.toBe(listBefore);

    await addVersion(t, 'tagged', formBody('Renamed'));
    const after = await tagsOf(READS);
    for (const [i] of READS.entries()) expect(after[i]).not.toBe(before[i]);
    const read = await get('/forms/tagged', before[0]);
    expect(read.json().name).toBe('Renamed');
    expect(tagged(await get('/forms', list))).not.toBe(list);

    // A deleted version and a deleted form change them too (and a deleted form has no tag: 404).
    const del = await call(t, 'DELETE', '/forms/tagged/2');
    expect(del.statusCode, del.body).toBe(200);
    expect(tagged(await get('/forms/tagged', after[0]))).not.toBe(after[0]);
    expect((await call(t, 'DELETE', '/forms/tagged')).statusCode).toBe(200);
    const gone = await get('/forms/tagged', after[0]);
    expect(gone.statusCode).toBe(404);
    expect(gone.headers.etag).toBeUndefined();
  });

  it("gives another tenant's list another tag", async () => {
    await addVersion(t, 'bystander', formBody(), OTHER_TENANT_ADMIN_KEY);
    const ours = tagged(await get('/forms'));
    const theirs = tagged(await get('/forms', ours, OTHER_TENANT_ADMIN_KEY));
    expect(theirs).not.toBe(ours);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine, login, sessionHeaders, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  ADMIN_KEY,
  ALICE,
  FORMS_CONFIG,
  ISO_UTC,
  addVersion,
  call,
  formBody,
  historyVersions,
} from './forms-fixtures.js';

describeEachEngine('Forms API endpoints', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, FORMS_CONFIG);
  });
  afterAll(() => t.close());

  describe('add, read, update', () => {
    it('adds a form as version 1 in the shape of decisions.md 6', async () => {
      const before = Date.now();
      const res = await call(t, 'POST', '/forms/contact', { body: formBody('Contact') });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const form = res.json();
      expect(form).toEqual({
        id: 'contact',
        version: 1,
        name: 'Contact',
        config: {
          metaData: { id: 'contact', version: 1 },
          configuration: { layout: 'wide' },
          components: [{ type: 'textfield', label: 'First name', key: 'firstName' }],
        },
        createdOn: expect.stringMatching(ISO_UTC),
        createdBy: 'forms-admin',
      });
      expect(Date.parse(form.createdOn)).toBeGreaterThanOrEqual(before - 1000);
      expect(Object.keys(form)).toEqual(['id', 'version', 'name', 'config', 'createdOn', 'createdBy']);
    });

    it('an existing id gets latest + 1 on add; update ignores {version}', async () => {
      expect((await addVersion(t, 'contact', formBody('Contact 2'))).version).toBe(2);
      const put = await call(t, 'PUT', '/forms/contact/1', { body: formBody('Contact 3') });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({
        id: 'contact',
        version: 3,
        name: 'Contact 3',
        config: { metaData: { id: 'contact', version: 3 } },
      });
      const putOdd = await call(t, 'PUT', '/forms/contact/not-a-number', { body: formBody('Contact 4') });
      expect(putOdd.json().version).toBe(4);
      expect(await historyVersions(t, 'contact')).toEqual([1, 2, 3, 4]);
    });

    it('update of a form that does not exist creates it with version 1', async () => {
      const res = await call(t, 'PUT', '/forms/fresh-by-put/7', { body: formBody('Fresh') });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        id: 'fresh-by-put',
        version: 1,
        config: { metaData: { id: 'fresh-by-put', version: 1 } },
      });
    });

    it('sets metaData id and version to the truth, keeps other metaData and unknown properties', async () => {
      const components = [
        {
          type: 'columns',
          customClass: 'x',
          columns: [
            {
              width: 6,
              components: [{ type: 'number', label: 'Age', validate: { min: 0 }, conditional: { show: true } }],
            },
          ],
        },
        { type: 'table', rows: [[{ components: [{ type: 'checkbox', label: 'ok' }] }, { components: [] }]] },
        { type: 'panel', title: 'P', components: [{ type: 'textarea', rows: 3 }] },
      ];
      const body = {
        name: 'Meta',
        ignoredRootField: true,
        config: {
          metaData: { id: 'lie', version: 99, author: 'me' },
          configuration: {},
          components,
          theme: { dark: true },
        },
      };
      const form = await addVersion(t, 'meta', body);
      expect(form.config).toEqual({
        metaData: { id: 'meta', version: 1, author: 'me' },
        configuration: {},
        components,
        theme: { dark: true },
      });
      expect(form).not.toHaveProperty('ignoredRootField');
      const read = await call(t, 'GET', '/forms/meta');
      expect(read.json()).toEqual(form);
    });

    it('defaults a missing configuration to {}', async () => {
      const form = await addVersion(t, 'no-configuration', { name: 'N', config: { components: [] } });
      expect(form.config).toEqual({
        metaData: { id: 'no-configuration', version: 1 },
        configuration: {},
        components: [],
      });
    });

    it('reads the latest version, a given version, and the latest one for a version that does not exist', async () => {
      const latest = await call(t, 'GET', '/forms/contact');
      expect(latest.statusCode).toBe(200);
      expect(latest.json()).toMatchObject({ version: 4, name: 'Contact 4' });
      const v2 = await call(t, 'GET', '/forms/contact/2');
      expect(v2.json()).toMatchObject({
        version: 2,
        name: 'Contact 2',
        config: { metaData: { id: 'contact', version: 2 } },
      });
      for (const missing of ['99', '0', 'abc', '-1', '1.5', '99999999999999']) {
        const res = await call(t, 'GET', `/forms/contact/${missing}`);
        expect(res.statusCode, missing).toBe(200);
        expect(res.json().version, missing).toBe(4);
      }
    });

    it('config endpoints answer the whole config entry', async () => {
      const latest = await call(t, 'GET', '/config/contact');
      expect(latest.statusCode).toBe(200);
      expect(latest.json()).toEqual({
        metaData: { id: 'contact', version: 4 },
        configuration: { layout: 'wide' },
        components: [{ type: 'textfield', label: 'First name', key: 'firstName' }],
      });
      expect((await call(t, 'GET', '/config/contact/2')).json().metaData).toEqual({ id: 'contact', version: 2 });
      expect((await call(t, 'GET', '/config/contact/42')).json().metaData).toEqual({ id: 'contact', version: 4 });
    });

    it('history lists every version oldest first as forms', async () => {
      const res = await call(t, 'GET', '/history/contact');
      expect(res.statusCode).toBe(200);
      const list = res.json();
      expect(list.map((f: any) => [f.version, f.name])).toEqual([
        [1, 'Contact'],
        [2, 'Contact 2'],
        [3, 'Contact 3'],
        [4, 'Contact 4'],
      ]);
      for (const f of list) expect(f.config.metaData).toEqual({ id: 'contact', version: f.version });
    });

    it('lists the latest version of every form, by id', async () => {
      const res = await call(t, 'GET', '/forms');
      expect(res.statusCode).toBe(200);
      const list = res.json();
      expect(list.map((f: any) => [f.id, f.version])).toEqual([
        ['contact', 4],
        ['fresh-by-put', 1],
        ['meta', 1],
        ['no-configuration', 1],
      ]);
    });

    it.each([
      ['GET', '/forms/nope'],
      ['GET', '/forms/nope/1'],
      ['GET', '/config/nope'],
      ['GET', '/config/nope/1'],
      ['GET', '/history/nope'],
      ['DELETE', '/forms/nope'],
      ['DELETE', '/forms/nope/1'],
    ])('%s %s of an unknown form answers 404 with the error object', async (method, url) => {
      const res = await call(t, method as any, url);
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({
        code: 404,
        messageKey: 'FORMS_ERROR_FORM_NOT_FOUND',
        properties: { formId: 'nope' },
      });
    });
  });

  describe('version arithmetic after deletes', () => {
    it('deleting a middle version keeps the rest; the next version is still latest + 1', async () => {
      for (let i = 1; i <= 3; i++) await addVersion(t, 'arith', formBody(`A${i}`));
      const del = await call(t, 'DELETE', '/forms/arith/2');
      expect(del.statusCode).toBe(200);
      expect(del.json()).toEqual({ id: 'arith', deletedVersions: [2] });
      expect(await historyVersions(t, 'arith')).toEqual([1, 3]);
      // The deleted version reads as "does not exist": the latest.
      expect((await call(t, 'GET', '/forms/arith/2')).json().version).toBe(3);
      expect((await addVersion(t, 'arith', formBody('A4'))).version).toBe(4);
    });

    it('deleting the latest version makes the previous one the latest, and its number is never reused', async () => {
      const del = await call(t, 'DELETE', '/forms/arith/4');
      expect(del.json()).toEqual({ id: 'arith', deletedVersions: [4] });
      expect((await call(t, 'GET', '/forms/arith')).json()).toMatchObject({ version: 3, name: 'A3' });
      expect((await call(t, 'GET', '/config/arith')).json().metaData.version).toBe(3);
      const list = (await call(t, 'GET', '/forms')).json();
      expect(list.find((f: any) => f.id === 'arith').version).toBe(3);
      const next = await call(t, 'PUT', '/forms/arith/3', { body: formBody('A5') });
      expect(next.json()).toMatchObject({ version: 5, config: { metaData: { version: 5 } } });
      expect(await historyVersions(t, 'arith')).toEqual([1, 3, 5]);
    });

    it('deleting a version that does not exist answers 404 and changes nothing', async () => {
      for (const v of ['2', '4', '6', '99999999999']) {
        const res = await call(t, 'DELETE', `/forms/arith/${v}`);
        expect(res.statusCode, v).toBe(404);
        expect(res.json().error.messageKey).toBe('FORMS_ERROR_VERSION_NOT_FOUND');
      }
      expect(await historyVersions(t, 'arith')).toEqual([1, 3, 5]);
    });

    it.each(['abc', '0', '-1', '1.5', '1e2', '%20'])('deleting version %j answers 400 (invalid version)', async (v) => {
      const res = await call(t, 'DELETE', `/forms/arith/${v}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 400, properties: { errors: [{ path: 'params.version' }] } });
      expect(await historyVersions(t, 'arith')).toEqual([1, 3, 5]);
    });

    it('accepts a version with leading zeros', async () => {
      const res = await call(t, 'DELETE', '/forms/arith/001');
      expect(res.json()).toEqual({ id: 'arith', deletedVersions: [1] });
    });

    it('deleting a form removes every version; it then does not exist and starts over at 1', async () => {
      const del = await call(t, 'DELETE', '/forms/arith');
      expect(del.statusCode).toBe(200);
      expect(del.json()).toEqual({ id: 'arith', deletedVersions: [3, 5] });
      expect((await call(t, 'GET', '/forms/arith')).statusCode).toBe(404);
      expect((await call(t, 'GET', '/forms/arith/3')).statusCode).toBe(404);
      expect(await historyVersions(t, 'arith')).toBe(404);
      expect((await call(t, 'DELETE', '/forms/arith')).statusCode).toBe(404);
      expect((await call(t, 'GET', '/forms')).json().map((f: any) => f.id)).not.toContain('arith');
      expect((await addVersion(t, 'arith')).version).toBe(1);
    });

    it('deleting the only version deletes the form', async () => {
      await addVersion(t, 'single');
      expect((await call(t, 'DELETE', '/forms/single/1')).json()).toEqual({ id: 'single', deletedVersions: [1] });
      expect((await call(t, 'GET', '/forms/single')).statusCode).toBe(404);
      expect((await call(t, 'GET', '/forms')).json().map((f: any) => f.id)).not.toContain('single');
      expect((await addVersion(t, 'single')).version).toBe(1);
    });
  });

  describe('with a session', () => {
    it('writes with the CSRF token, records the login name, and refuses a write without it', async () => {
      const s = await login(t, 'acme', ALICE.loginName, ALICE.password);
      const res = await call(t, 'POST', '/forms/by-session', {
        key: null,
        headers: sessionHeaders(s),
        body: formBody(),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().createdBy).toBe('alice');
      const noCsrf = await call(t, 'POST', '/forms/by-session', {
        key: null,
        headers: sessionHeaders(s, false),
        body: formBody(),
      });
      expect(noCsrf.statusCode).toBe(403);
      expect(await historyVersions(t, 'by-session')).toEqual([1]);
      const read = await call(t, 'GET', '/forms/by-session', { key: null, headers: sessionHeaders(s, false) });
      expect(read.statusCode).toBe(200);
    });
  });

  it('an empty repository lists []', async () => {
    const fresh = await startTestApp(engine, FORMS_CONFIG);
    try {
      const res = await call(fresh, 'GET', '/forms', { key: ADMIN_KEY });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});

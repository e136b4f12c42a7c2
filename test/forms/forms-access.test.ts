import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  ADMIN_KEY,
  FORMS_CONFIG,
  PLAIN_KEY,
  addVersion,
  call,
  exceptKey,
  formBody,
  historyVersions,
  onlyKey,
  type FormsRight,
} from './forms-fixtures.js';

interface Endpoint {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path for a form id that the case has set up with versions 1 and 2. */
  path: (formId: string) => string;
  body?: unknown;
  /** null: any authenticated caller. */
  right: FormsRight | null;
  /** What a caller that is let in gets. */
  okBody: (formId: string) => unknown;
  /** Versions of the form after a successful call (null: the form is gone). */
  versionsAfter: number[] | null;
}

const form = (formId: string, version: number) => expect.objectContaining({ id: formId, version });

const ENDPOINTS: Endpoint[] = [
  {
    name: 'list forms',
    method: 'GET',
    path: () => '/forms',
    right: 'FORMS_READ_ALL',
    okBody: (id) => expect.arrayContaining([form(id, 2)]),
    versionsAfter: [1, 2],
  },
  {
    name: 'add a form',
    method: 'POST',
    path: (id) => `/forms/${id}`,
    body: formBody(),
    right: 'FORMS_ADD',
    okBody: (id) => form(id, 3),
    versionsAfter: [1, 2, 3],
  },
  {
    name: 'update a form',
    method: 'PUT',
    path: (id) => `/forms/${id}/1`,
    body: formBody(),
    right: 'FORMS_UPDATE',
    okBody: (id) => form(id, 3),
    versionsAfter: [1, 2, 3],
  },
  {
    name: 'read the latest version',
    method: 'GET',
    path: (id) => `/forms/${id}`,
    right: null,
    okBody: (id) => form(id, 2),
    versionsAfter: [1, 2],
  },
  {
    name: 'read a version',
    method: 'GET',
    path: (id) => `/forms/${id}/1`,
    right: null,
    okBody: (id) => form(id, 1),
    versionsAfter: [1, 2],
  },
  {
    name: 'read the history',
    method: 'GET',
    path: (id) => `/history/${id}`,
    right: 'FORMS_READ_HISTORY',
    okBody: (id) => [form(id, 1), form(id, 2)],
    versionsAfter: [1, 2],
  },
  {
    name: 'read the latest config',
    method: 'GET',
    path: (id) => `/config/${id}`,
    right: null,
    okBody: (id) => expect.objectContaining({ metaData: { id, version: 2 } }),
    versionsAfter: [1, 2],
  },
  {
    name: 'read a config version',
    method: 'GET',
    path: (id) => `/config/${id}/1`,
    right: null,
    okBody: (id) => expect.objectContaining({ metaData: { id, version: 1 } }),
    versionsAfter: [1, 2],
  },
  {
    name: 'delete a version',
    method: 'DELETE',
    path: (id) => `/forms/${id}/1`,
    right: 'FORMS_DELETE',
    okBody: (id) => ({ id, deletedVersions: [1] }),
    versionsAfter: [2],
  },
  {
    name: 'delete a form',
    method: 'DELETE',
    path: (id) => `/forms/${id}`,
    right: 'FORMS_DELETE',
    okBody: (id) => ({ id, deletedVersions: [1, 2] }),
    versionsAfter: null,
  },
];

type Caller = { name: string; key: (e: Endpoint) => string | null; allowed: (e: Endpoint) => boolean };

const CALLERS: Caller[] = [
  { name: 'role FORMS_ADMIN', key: () => ADMIN_KEY, allowed: () => true },
  { name: 'the named right', key: (e) => (e.right ? onlyKey(e.right) : PLAIN_KEY), allowed: () => true },
  {
    name: 'every other forms right',
    key: (e) => (e.right ? exceptKey(e.right) : PLAIN_KEY),
    allowed: (e) => e.right === null,
  },
  { name: 'neither role nor right', key: () => PLAIN_KEY, allowed: (e) => e.right === null },
  { name: 'no credential', key: () => null, allowed: () => false },
];

const CASES = ENDPOINTS.flatMap((e) => CALLERS.map((c) => ({ e, c, label: `${e.name} with ${c.name}` })));

describeEachEngine('Forms API access', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, FORMS_CONFIG);
  });
  afterAll(() => t.close());

  it.each(CASES.map((x, i) => ({ ...x, i })))('$label', async ({ e, c, i }) => {
    const formId = `access-${i}`;
    await addVersion(t, formId);
    await addVersion(t, formId);
    const res = await call(t, e.method, e.path(formId), { key: c.key(e), body: e.body });
    const expected = c.allowed(e) ? 200 : 401;
    expect(res.statusCode, res.body).toBe(expected);
    if (expected === 200) {
      expect(res.json()).toEqual(e.okBody(formId));
      expect(await historyVersions(t, formId)).toEqual(e.versionsAfter ?? 404);
      return;
    }
    const error = res.json().error;
    if (c.key(e) === null)
      expect(error).toMatchObject({ code: 540, messageKey: 'CORE_ERROR_IDENTITY_PROVIDER_AUTHENTICATION_FAILED' });
    else
      expect(error).toMatchObject({
        code: 401,
        messageKey: 'FORMS_ERROR_UNAUTHORIZED',
        properties: { role: 'FORMS_ADMIN', right: e.right },
      });
    // A refused call changes nothing.
    expect(await historyVersions(t, formId)).toEqual([1, 2]);
  });

  it('refuses a caller without access before reading its body', async () => {
    const res = await call(t, 'POST', '/forms/unread', {
      key: PLAIN_KEY,
      body: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.messageKey).toBe('FORMS_ERROR_UNAUTHORIZED');
  });
});

import type { InjectOptions } from 'fastify';
import type { TestApp } from '../helpers/test-app.js';

export const RIGHTS = ['FORMS_READ_ALL', 'FORMS_ADD', 'FORMS_UPDATE', 'FORMS_READ_HISTORY', 'FORMS_DELETE'] as const;
export type FormsRight = (typeof RIGHTS)[number];

export const ADMIN_KEY = 'k-forms-admin-0001';
export const PLAIN_KEY = 'k-forms-plain-0001';
export const OTHER_TENANT_ADMIN_KEY = 'k-other-admin-0001';
/** A key holding exactly this right. */
export const onlyKey = (right: FormsRight) => `k-only-${right.toLowerCase()}`;
/** A key holding every forms right except this one. */
export const exceptKey = (right: FormsRight) => `k-except-${right.toLowerCase()}`;

export const ALICE = { loginName: 'alice', password: 'alice-pass-1' };

/** Two tenants: acme with an admin key, a key per right, a key per "all rights but one", a plain key and a user; other with an admin key. */
export const FORMS_CONFIG = {
  tenants: [
    {
      name: 'acme',
      users: [{ ...ALICE, roles: ['FORMS_ADMIN'] }],
      apiKeys: [
        { name: 'forms-admin', key: ADMIN_KEY, roles: ['FORMS_ADMIN'] },
        { name: 'plain', key: PLAIN_KEY, roles: ['USER'], rights: ['loadModule_forms'] },
        ...RIGHTS.map((r) => ({ name: `only-${r}`, key: onlyKey(r), rights: [r] })),
        ...RIGHTS.map((r) => ({
          name: `except-${r}`,
          key: exceptKey(r),
          roles: ['FORMS_USER'],
          rights: RIGHTS.filter((x) => x !== r),
        })),
      ],
    },
    { name: 'other', apiKeys: [{ name: 'other-admin', key: OTHER_TENANT_ADMIN_KEY, roles: ['FORMS_ADMIN'] }] },
  ],
};

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One call through HTTP; `key: null` sends no credential. */
export function call(t: TestApp, method: InjectOptions['method'], url: string, opts: CallOptions = {}) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? ADMIN_KEY : opts.key;
  if (key !== null) headers['x-apikey'] = key;
  return t.request({
    method,
    url: `/cxf/svc-forms${url}`,
    headers,
    ...(opts.body !== undefined ? { payload: opts.body as any } : {}),
  });
}

export function formBody(
  name = 'Contact',
  components: unknown[] = [{ type: 'textfield', label: 'First name', key: 'firstName' }],
  extra: Record<string, unknown> = {},
) {
  return { name, config: { configuration: { layout: 'wide' }, components, ...extra } };
}

/** Adds a version through the API and answers the returned form. */
export async function addVersion(t: TestApp, formId: string, body: unknown = formBody(), key = ADMIN_KEY) {
  const res = await call(t, 'POST', `/forms/${formId}`, { key, body });
  if (res.statusCode !== 200) throw new Error(`add ${formId}: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function historyVersions(t: TestApp, formId: string): Promise<number[] | number> {
  const res = await call(t, 'GET', `/history/${formId}`);
  return res.statusCode === 200 ? res.json().map((f: { version: number }) => f.version) : res.statusCode;
}

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

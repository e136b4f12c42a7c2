import type { TestApp } from '../helpers/test-app.js';

export const N = '/cxf/svc-core/notification';
export const ADMIN_KEY = 'k-notif-admin-0001';
export const ADDER_KEY = 'k-notif-adder-0001';
export const UPDATER_KEY = 'k-notif-updater-0001';
export const DELETER_KEY = 'k-notif-deleter-0001';
export const PLAIN_KEY = 'k-notif-plain-0001';
export const TENANT_ADMIN_KEY = 'k-tenant-admin-0001';
export const OTHER_ADMIN_KEY = 'k-other-notif-admin-0001';
export const ALICE = { loginName: 'alice', password: 'alice-pass-1' };
export const BOB = { loginName: 'bob', password: 'bob-pass-1' };

/**
 * Tenant acme: alice (role R1, organisation O1 active, O2 inactive), bob (role R2, organisation O3), keys for each
 * right and a plain one; tenant globex with its own NOTIFICATION_ADMIN.
 */
export const NOTIFICATIONS_CONFIG = {
  tenants: [
    {
      name: 'acme',
      users: [
        { ...ALICE, roles: ['R1'], organisations: ['O1'], inactiveOrganisations: ['O2'] },
        { ...BOB, roles: ['R2'], organisations: ['O3'] },
      ],
      apiKeys: [
        { name: 'notifier', key: ADMIN_KEY, roles: ['NOTIFICATION_ADMIN'] },
        { name: 'adder', key: ADDER_KEY, rights: ['NOTIFICATION_ADD'] },
        { name: 'updater', key: UPDATER_KEY, rights: ['NOTIFICATION_UPDATE'] },
        { name: 'deleter', key: DELETER_KEY, rights: ['NOTIFICATION_DELETE'] },
        { name: 'plain', key: PLAIN_KEY, roles: ['R9'] },
        { name: 'tenant-admin', key: TENANT_ADMIN_KEY, roles: ['ADMIN'] },
      ],
    },
    { name: 'globex', apiKeys: [{ name: 'notifier', key: OTHER_ADMIN_KEY, roles: ['NOTIFICATION_ADMIN'] }] },
  ],
};

export const note = (recipientsType: string, recipients: string[], extra: Record<string, unknown> = {}) => ({
  subject: `to ${recipientsType} ${recipients.join(',')}`,
  recipients,
  recipientsType,
  ...extra,
});

export function call(
  t: TestApp,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  key: string | null,
  body?: unknown,
) {
  return t.request({
    method,
    url,
    headers: {
      ...(key ? { 'x-apikey': key } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

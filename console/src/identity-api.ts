// The calls of the identity administration pages (users, their sessions, API keys): `/cxf/svc-core/admin/...`
// through the SDK's client of api.ts (session cookie and CSRF header), typed by the SDK's generated paths.
import { unwrap } from '@svc-platform/client';
import { client } from './api';

export interface AdminUser {
  loginName: string;
  email: string;
  firstName: string;
  lastName: string;
  organisations: string[];
  inactiveOrganisations: string[];
  roles: string[];
  rights: string[];
  active: boolean;
  hasPassword: boolean;
  createdOn: string;
  updatedOn: string;
}

/** What the user page changes (lists are replaced whole by the API). */
export interface UserChange {
  email?: string;
  firstName?: string;
  lastName?: string;
  organisations?: string[];
  roles?: string[];
  rights?: string[];
  active?: boolean;
}

export interface UserSession {
  id: string;
  createdOn: string;
  expiresOn: string;
  remoteAddress: string;
  userAgent: string;
}

export interface AdminApiKey {
  name: string;
  organisations: string[];
  roles: string[];
  rights: string[];
  expiresOn: string | null;
  createdOn: string;
}

export interface NewApiKey {
  name: string;
  organisations?: string[];
  roles?: string[];
  rights?: string[];
  expiresOn?: string | null;
}

const USERS = '/cxf/svc-core/admin/users';
const userPath = (loginName: string) => ({ params: { path: { loginName } } });
const keyPath = (name: string) => ({ params: { path: { name } } });

export const identityApi = {
  users: (search: string, start: number, limit: number): Promise<{ total: number; items: AdminUser[] }> =>
    unwrap(client.GET(USERS, { params: { query: { start, limit, ...(search ? { search } : {}) } } })),
  user: (loginName: string): Promise<AdminUser> =>
    unwrap(client.GET('/cxf/svc-core/admin/users/{loginName}', userPath(loginName))),
  updateUser: (loginName: string, change: UserChange): Promise<AdminUser> =>
    unwrap(client.PATCH('/cxf/svc-core/admin/users/{loginName}', { ...userPath(loginName), body: change })),
  deleteUser: (loginName: string) =>
    unwrap(client.DELETE('/cxf/svc-core/admin/users/{loginName}', userPath(loginName))),
  setPassword: (loginName: string, password: string) =>
    unwrap(
      client.PUT('/cxf/svc-core/admin/users/{loginName}/password', { ...userPath(loginName), body: { password } }),
    ),
  unlock: (loginName: string) =>
    unwrap(client.POST('/cxf/svc-core/admin/users/{loginName}/unlock', userPath(loginName))),
  sessions: (loginName: string): Promise<{ items: UserSession[] }> =>
    unwrap(client.GET('/cxf/svc-core/admin/users/{loginName}/sessions', userPath(loginName))),
  endSession: (loginName: string, id: string) =>
    unwrap(
      client.DELETE('/cxf/svc-core/admin/users/{loginName}/sessions/{id}', { params: { path: { loginName, id } } }),
    ),
  endAllSessions: (loginName: string) =>
    unwrap(client.DELETE('/cxf/svc-core/admin/users/{loginName}/sessions', userPath(loginName))),
  apiKeys: (start: number, limit: number): Promise<{ total: number; items: AdminApiKey[] }> =>
    unwrap(client.GET('/cxf/svc-core/admin/api-keys', { params: { query: { start, limit } } })),
  createApiKey: (key: NewApiKey): Promise<{ key: string; apiKey: AdminApiKey }> =>
    unwrap(client.POST('/cxf/svc-core/admin/api-keys', { body: key })),
  revokeApiKey: (name: string) => unwrap(client.DELETE('/cxf/svc-core/admin/api-keys/{name}', keyPath(name))),
  setApiKeyExpiry: (name: string, expiresOn: string | null): Promise<AdminApiKey> =>
    unwrap(client.PUT('/cxf/svc-core/admin/api-keys/{name}/expiry', { ...keyPath(name), body: { expiresOn } })),
};

/** "a, b ,c" to ["a", "b", "c"]: the lists the forms edit, comma-separated, without empties or repeats. */
export const parseList = (text: string) => [
  ...new Set(
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

/** `datetime-local` (the browser's time zone) to an ISO instant, and back; empty is "never". */
export const toInstant = (local: string) => (local ? new Date(local).toISOString() : null);
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const formatInstant = (iso: string | null) => (iso ? when.format(new Date(iso)) : 'Never');

// The console's one door to the API. Every call goes through here, in the session mode every browser client uses:
// the session cookie (set by the login answer, sent by the browser) and the X-Csrf-Token header on writes.
// Interim: the SDK (@svc-platform/client, branch sdk) is not merged yet; once it is, these functions delegate to it
// and this file shrinks to the console's choice of calls. Pages never call fetch themselves.

/** The error object of every failed API answer (decisions.md section 4). */
export interface ApiErrorBody {
  messageKey: string;
  code: number;
  name: string;
  message: string;
  properties?: Record<string, unknown>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message);
  }
}

export interface SessionRecord {
  loginName: string;
  organisations: string[];
  roles: string[];
  rights: string[];
  principals: Record<string, string[]>;
  expirationDate: number;
}

export interface Restriction {
  user?: string;
  organisations?: string[];
  roles?: string[];
  rights?: string[];
}

export interface StoreItem {
  id: string;
  name: string | null;
  value: unknown;
  favorite: boolean;
  readRestriction: Restriction;
  writeRestriction: Restriction;
  customFields: Record<string, unknown>;
  createdOn: string;
  createdBy: string;
  updatedOn: string;
  updatedBy: string;
}

export interface ItemWrite {
  name?: string | null;
  value: unknown;
  readRestriction: Restriction;
  writeRestriction: Restriction;
}

export interface ItemPage {
  total: number;
  items: StoreItem[];
}

export interface StoreSummary {
  storeId: string;
  readableItems: number;
}

export interface StoreDirectory {
  total: number;
  stores: StoreSummary[];
}

export interface ListQuery {
  filter?: string;
  query?: string;
  sort?: string;
  start?: number;
  limit?: number;
}

const STORAGE = '/cxf/svc-core/storage/store';
const AUTH = '/cxf/svc-core/authentication';

let csrfToken = '';
const expiredListeners = new Set<() => void>();

/** Called when a call answers 401 with a session that was open: the session ended (expired or logged out). */
export function onSessionExpired(listener: () => void): () => void {
  expiredListeners.add(listener);
  return () => expiredListeners.delete(listener);
}

function remember(record: SessionRecord): SessionRecord {
  csrfToken = record.principals['X-Csrf-Token']?.[0] ?? '';
  return record;
}

/** One API call in the session mode (also used by admin-api.ts, the calls of the notification/forms/audit pages). */
export async function call<T>(method: string, path: string, body?: BodyInit, type?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (type) headers['content-type'] = type;
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path, { method, headers, body, credentials: 'same-origin' });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const error: ApiErrorBody = json?.error ?? {
      messageKey: 'CONSOLE_UNEXPECTED_ANSWER',
      code: res.status,
      name: res.statusText,
      message: `The service answered ${res.status}`,
    };
    // The forms API answers a missing role or right with 401 too (its spec): that is no ended session.
    if (res.status === 401 && csrfToken && path !== AUTH && error.messageKey !== 'FORMS_ERROR_UNAUTHORIZED') {
      csrfToken = '';
      for (const listener of expiredListeners) listener();
    }
    throw new ApiError(res.status, error);
  }
  return json as T;
}

const json = (value: unknown) => JSON.stringify(value);

function listParams(q: ListQuery): string {
  const params = new URLSearchParams();
  if (q.filter) params.set('filter', q.filter);
  if (q.query) params.set('query', q.query);
  if (q.sort) params.set('sort', q.sort);
  if (q.start !== undefined) params.set('start', String(q.start));
  if (q.limit !== undefined) params.set('limit', String(q.limit));
  const s = params.toString();
  return s ? `?${s}` : '';
}

const enc = encodeURIComponent;

export const api = {
  /** The open session of this browser, or undefined (401). */
  async session(): Promise<SessionRecord | undefined> {
    try {
      return remember(await call<SessionRecord>('GET', AUTH));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return undefined;
      throw err;
    }
  },
  async login(tenantname: string, username: string, password: string): Promise<SessionRecord> {
    const body = new URLSearchParams({ tenantname, username, password }).toString();
    return remember(await call<SessionRecord>('POST', AUTH, body, 'application/x-www-form-urlencoded'));
  },
  async logout(): Promise<void> {
    try {
      await call('DELETE', AUTH);
    } finally {
      csrfToken = '';
    }
  },
  stores: (start = 0, limit = 1000) => call<StoreDirectory>('GET', `${STORAGE}${listParams({ start, limit })}`),
  items: (storeId: string, q: ListQuery) => call<ItemPage>('GET', `${STORAGE}/${enc(storeId)}${listParams(q)}`),
  item: (storeId: string, itemId: string) => call<StoreItem>('GET', `${STORAGE}/${enc(storeId)}/${enc(itemId)}`),
  create: (storeId: string, item: ItemWrite) =>
    call<{ id: string }>('POST', `${STORAGE}/${enc(storeId)}`, json(item), 'application/json'),
  put: (storeId: string, itemId: string, item: ItemWrite) =>
    call<StoreItem>('PUT', `${STORAGE}/${enc(storeId)}/${enc(itemId)}`, json(item), 'application/json'),
  remove: (storeId: string, itemId: string) => call<StoreItem>('DELETE', `${STORAGE}/${enc(storeId)}/${enc(itemId)}`),
  /** The streamed export of a filter, as a URL the browser downloads itself (with the session cookie). */
  exportUrl: (storeId: string, format: 'csv' | 'json', q: ListQuery) => {
    const params = new URLSearchParams({ format });
    if (q.filter) params.set('filter', q.filter);
    if (q.query) params.set('query', q.query);
    if (q.sort) params.set('sort', q.sort);
    return `${STORAGE}/${enc(storeId)}/export?${params}`;
  },
  /** The store's change stream (SSE); the caller closes it. */
  storeStream: (storeId: string) => new EventSource(`${STORAGE}/${enc(storeId)}/stream`),
};

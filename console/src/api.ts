// The console's one door to the API: the typed client of the SDK (@svc-platform/client) in session mode, as every
// browser client uses it (the session cookie the login sets, the X-Csrf-Token header on writes). Pages call these
// functions, never fetch. Calls the SDK's generated types do not know yet (the store list, added by the storage
// branch after the SDK's document was generated) go through the client's own `send`, with its credentials.
import { ApiError, createClient, type SessionRecord, type StoreEvent, type StreamState } from '@svc-platform/client';

export { ApiError };
export type { SessionRecord, StoreEvent };

export interface Restriction {
  user?: string | null;
  organisations?: string[];
  roles?: string[];
  rights?: string[];
}

export interface StoreItem {
  id: string;
  name?: string | null;
  value?: unknown;
  readRestriction?: Restriction;
  writeRestriction?: Restriction;
  updatedOn?: string;
  updatedBy?: string;
}

export interface ItemWrite {
  [field: string]: unknown;
  name?: string | null;
  value: unknown;
  readRestriction: Restriction;
  writeRestriction: Restriction;
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

const AUTH = '/cxf/svc-core/authentication';
const STORAGE = '/cxf/svc-core/storage/store';

/** The client of this page: same origin as the console (the service serves both). */
export const client = createClient({ baseUrl: window.location.origin, auth: { session: true } });

const expiredListeners = new Set<() => void>();
let loggedIn = false;

/** Called when a call answers 401 while a session was open: it ended (expired, or logged out elsewhere). */
export function onSessionExpired(listener: () => void): () => void {
  expiredListeners.add(listener);
  return () => expiredListeners.delete(listener);
}

client.use({
  async onResponse({ request, response }) {
    if (response.status === 401 && loggedIn && new URL(request.url).pathname !== AUTH) {
      // The forms API answers a missing role or right with 401 too (its spec): that is no ended session.
      const body = await response
        .clone()
        .json()
        .catch(() => undefined);
      if (body?.error?.messageKey === 'FORMS_ERROR_UNAUTHORIZED') return undefined;
      loggedIn = false;
      for (const listener of expiredListeners) listener();
    }
    return undefined;
  },
});

/** An openapi-fetch answer's data, or its error object thrown as ApiError. */
async function data<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw ApiError.from(error, response);
  return data as T;
}

const storePath = { path: { storeId: '' } };
const itemQuery = (storeId: string, q: ListQuery) => ({
  params: {
    path: { ...storePath.path, storeId },
    query: {
      start: q.start ?? 0,
      limit: q.limit ?? 20,
      ...(q.filter ? { filter: q.filter } : {}),
      ...(q.query ? { query: q.query } : {}),
      ...(q.sort ? { sort: q.sort } : {}),
    },
  },
});

export const api = {
  /** The open session of this browser, or undefined (401). */
  async session(): Promise<SessionRecord | undefined> {
    try {
      const record = await client.restoreSession();
      loggedIn = true;
      return record;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return undefined;
      throw err;
    }
  },
  async login(tenant: string, username: string, password: string): Promise<SessionRecord> {
    const record = await client.login({ tenant, username, password });
    loggedIn = true;
    return record;
  },
  async logout(): Promise<void> {
    loggedIn = false;
    await client.logout();
  },
  stores: (start = 0, limit = 1000): Promise<StoreDirectory> =>
    data(client.GET('/cxf/svc-core/storage/store', { params: { query: { start, limit } } })),
  items: (storeId: string, q: ListQuery) =>
    data(client.GET('/cxf/svc-core/storage/store/{storeId}', itemQuery(storeId, q))),
  create: (storeId: string, item: ItemWrite) =>
    data(client.POST('/cxf/svc-core/storage/store/{storeId}', { params: { path: { storeId } }, body: item })),
  put: (storeId: string, itemId: string, item: ItemWrite) =>
    data(
      client.PUT('/cxf/svc-core/storage/store/{storeId}/{itemId}', {
        params: { path: { storeId, itemId } },
        body: item,
      }),
    ),
  remove: (storeId: string, itemId: string) =>
    data(client.DELETE('/cxf/svc-core/storage/store/{storeId}/{itemId}', { params: { path: { storeId, itemId } } })),
  /**
   * The streamed export of a filter, as a URL the browser downloads itself (a plain GET with the session cookie,
   * written to disk as it arrives: nothing of it is held in the page).
   */
  exportUrl: (storeId: string, format: 'csv' | 'json', q: ListQuery) => {
    const params = new URLSearchParams({ format });
    if (q.filter) params.set('filter', q.filter);
    if (q.query) params.set('query', q.query);
    if (q.sort) params.set('sort', q.sort);
    return `${STORAGE}/${encodeURIComponent(storeId)}/export?${params}`;
  },
  /** The store's live events (the SDK reconnects and resumes); answers the function that ends them. */
  subscribeStore: (storeId: string, onEvent: (event: StoreEvent) => void, onState: (state: StreamState) => void) =>
    client.storage.subscribe(storeId, onEvent, { onStateChange: onState }),
};

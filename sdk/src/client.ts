// createClient: openapi-fetch over the document's types (GET/POST/PUT/DELETE with `{ data, error, response }`), the
// credentials of `auth` on every request, login/logout for session mode, and the helpers (dm, storage,
// notifications) where the raw API is awkward.
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import { applyAuth, type Auth, CSRF_HEADER, SessionState } from './auth.js';
import { createDm, type DmHelpers } from './dm.js';
import { ApiError, unwrap } from './errors.js';
import { createNotifications, type NotificationHelpers } from './notifications.js';
import type { paths } from './schema.js';
import { createStorage, type StorageHelpers } from './storage.js';

export type FetchFunction = (input: Request) => Promise<Response>;

export interface ClientOptions {
  /** Where the service answers, e.g. `http://127.0.0.1:8080` (no trailing `/cxf`); in a page of the service: `''` or `location.origin`. */
  baseUrl: string;
  /** How requests authenticate; none: only the public endpoints (login, session check, health) answer. */
  auth?: Auth;
  /** A fetch to use instead of the global one (tests, a proxy agent, a fetch with timeouts). */
  fetch?: FetchFunction;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

export interface LoginInput {
  tenant: string;
  username: string;
  password: string;
}

export type SessionRecord =
  paths['/cxf/svc-core/authentication']['post']['responses'][200]['content']['application/json'];

/** What the helpers share: the transport with the client's credentials. */
export interface ClientCore {
  readonly baseUrl: string;
  readonly raw: Client<paths>;
  /** Sends a request of the client's own (streams) with the client's credentials and cookies. */
  send(request: Request): Promise<Response>;
}

export interface SvcClient extends ClientCore {
  GET: Client<paths>['GET'];
  POST: Client<paths>['POST'];
  PUT: Client<paths>['PUT'];
  DELETE: Client<paths>['DELETE'];
  PATCH: Client<paths>['PATCH'];
  /** Adds openapi-fetch middleware (after the credentials are set). */
  use: Client<paths>['use'];
  /** Session mode: logs in, keeps the session (cookie outside browsers) and its CSRF token. Throws ApiError. */
  login(input: LoginInput): Promise<SessionRecord>;
  /** Session mode: reads the live session (after a page reload) and takes its CSRF token. Throws ApiError (401). */
  restoreSession(): Promise<SessionRecord>;
  /** Session mode: ends the session on the service and forgets it here. Throws ApiError. */
  logout(): Promise<void>;
  /** The CSRF token of the session, once logged in (session mode). */
  readonly csrfToken: string | undefined;
  dm: DmHelpers;
  storage: StorageHelpers;
  notifications: NotificationHelpers;
}

const LOGIN_PATH = '/cxf/svc-core/authentication';

export function createClient(options: ClientOptions): SvcClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const auth = options.auth;
  const session = new SessionState();
  const sessionMode = auth !== undefined && 'session' in auth;
  const fetchImpl: FetchFunction = options.fetch ?? ((request) => globalThis.fetch(request));

  const authorize = async (request: Request): Promise<Request> => {
    const headers = new Headers(request.headers);
    await applyAuth(auth, session, request.method, headers);
    return new Request(request, { headers });
  };
  const send = async (request: Request): Promise<Response> => {
    const response = await fetchImpl(await authorize(request));
    if (sessionMode) session.keepCookies(response);
    return response;
  };

  const raw = createFetchClient<paths>({
    baseUrl,
    fetch: send,
    headers: options.headers,
    // Browsers send the session cookie cross-origin only with this; same-origin pages send it anyway.
    ...(sessionMode ? { credentials: 'include' as const } : {}),
  });

  const requireSession = (what: string) => {
    if (!sessionMode) throw new TypeError(`${what} needs a client created with auth: { session: true }`);
  };
  const takeSession = (record: SessionRecord): SessionRecord => {
    const token = record.principals?.[CSRF_HEADER]?.[0];
    if (typeof token === 'string') session.csrfToken = token;
    return record;
  };

  const core: ClientCore = { baseUrl, raw, send };
  const client: SvcClient = {
    ...core,
    GET: raw.GET.bind(raw),
    POST: raw.POST.bind(raw),
    PUT: raw.PUT.bind(raw),
    DELETE: raw.DELETE.bind(raw),
    PATCH: raw.PATCH.bind(raw),
    use: raw.use.bind(raw),
    async login({ tenant, username, password }) {
      requireSession('login');
      session.clear();
      const record = await unwrap(
        raw.POST(LOGIN_PATH, {
          body: { tenantname: tenant, username, password },
          bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        }),
      );
      return takeSession(record);
    },
    async restoreSession() {
      requireSession('restoreSession');
      return takeSession(await unwrap(raw.GET(LOGIN_PATH)));
    },
    async logout() {
      requireSession('logout');
      const { error, response } = await raw.DELETE(LOGIN_PATH);
      if (error !== undefined || !response.ok) throw ApiError.from(error, response);
      session.clear();
    },
    get csrfToken() {
      return session.csrfToken;
    },
    dm: createDm(core),
    storage: createStorage(core),
    notifications: createNotifications(core),
  };
  return client;
}

export type { Middleware };

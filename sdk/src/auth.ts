// The credentials of a client and how they go on every request: an API key, a bearer token (fixed or fetched fresh
// for each request), HTTP Basic (the process engine's endpoints), or the session of `client.login()` with its CSRF
// token on writes. Browsers keep the session cookie themselves (`credentials: 'include'`); elsewhere (Node) there is
// no cookie jar, so the client keeps the cookies the service sets and sends them back.

/** A token, or a function answering a fresh one (called before every request, so it may refresh). */
export type TokenSource = string | (() => string | Promise<string>);

export type Auth =
  /** `X-APIKey: <key>` on every request. */
  | { apiKey: string }
  /** `Authorization: Bearer <token>` on every request (an access token of POST /authentication/token or OIDC). */
  | { bearer: TokenSource }
  /** HTTP Basic, as the process engine's endpoints (`/engine/...`) take it. */
  | { basic: { username: string; password: string } }
  /** The session of `client.login()`: its cookie, and `X-Csrf-Token` on POST, PUT, PATCH and DELETE. */
  | { session: true };

export const CSRF_HEADER = 'X-Csrf-Token';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a session-mode client knows of its session. */
export class SessionState {
  /** The CSRF token of the session (from the login answer or the session check). */
  csrfToken: string | undefined;
  /** Cookies the service set, by name; only filled outside browsers, where answers show `set-cookie`. */
  private readonly cookies = new Map<string, string>();

  /** Keeps the cookies of an answer (browsers never show `set-cookie` to scripts: nothing happens there). */
  keepCookies(response: Response): void {
    const headers = response.headers as Headers & { getSetCookie?: () => string[] };
    const lines = headers.getSetCookie?.() ?? [];
    for (const line of lines) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [key, v = ''] = a.split('=').map((s) => s.trim());
        if (key.toLowerCase() === 'max-age') return Number(v) <= 0;
        if (key.toLowerCase() === 'expires') return Date.parse(v) <= Date.now();
        return false;
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** The `cookie` header value, or undefined when no cookie is kept. */
  cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  clear(): void {
    this.csrfToken = undefined;
    this.cookies.clear();
  }
}

function basicCredentials(username: string, password: string): string {
  // btoa takes Latin-1 only: encode as UTF-8 bytes first, as the service decodes them.
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Sets the credential headers of `auth` on `headers` for a request of `method`. */
export async function applyAuth(
  auth: Auth | undefined,
  session: SessionState,
  method: string,
  headers: Headers,
): Promise<void> {
  if (!auth) return;
  if ('apiKey' in auth) headers.set('X-APIKey', auth.apiKey);
  else if ('bearer' in auth) {
    const token = typeof auth.bearer === 'function' ? await auth.bearer() : auth.bearer;
    headers.set('Authorization', `Bearer ${token}`);
  } else if ('basic' in auth) {
    headers.set('Authorization', `Basic ${basicCredentials(auth.basic.username, auth.basic.password)}`);
  } else if ('session' in auth) {
    const cookie = session.cookieHeader();
    if (cookie && !headers.has('cookie')) headers.set('cookie', cookie);
    if (session.csrfToken && UNSAFE_METHODS.has(method.toUpperCase()) && !headers.has(CSRF_HEADER)) {
      headers.set(CSRF_HEADER, session.csrfToken);
    }
  }
}

import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { AppError } from '../../platform/errors/app-error.js';
import { ERRORS } from '../../platform/errors/error-catalogue.js';
import { EngineUsers, type CredentialGuard } from './engine-users.js';

/** A process user as the Process User Server knows it: its name and its roles as they are now. */
export interface ProcessUser {
  name: string;
  roles: string[];
}

/** Where process users and their roles come from (config `engine.processUserServer`). */
export interface ProcessUserServer {
  /** Whether the server can vouch for access tokens (`X-AUTH-TOKEN: Bearer ...`); if not, tokens answer 401. */
  readonly supportsTokens: boolean;
  byPassword(name: string, password: string, ip: string): Promise<ProcessUser | null>;
  byToken(token: string): Promise<ProcessUser | null>;
  start?(): Promise<void>;
}

/** The users check of the platform in this process (the identity module's face). */
export interface LocalUserCheck {
  byPassword(
    tenant: string,
    loginName: string,
    password: string,
    ip: string | undefined,
  ): Promise<{ loginName: string; roles: string[] } | null>;
  byToken(tenant: string, token: string): Promise<{ loginName: string; roles: string[] } | null>;
}

const asProcessUser = (u: { loginName: string; roles: string[] } | null): ProcessUser | null =>
  u ? { name: u.loginName, roles: u.roles } : null;

/** Type `platform` in the same process: the platform's users of one tenant, their passwords and access tokens. */
export class LocalPlatformServer implements ProcessUserServer {
  readonly supportsTokens = true;
  constructor(
    private readonly check: LocalUserCheck,
    private readonly tenant: string,
  ) {}
  async byPassword(name: string, password: string, ip: string) {
    return asProcessUser(await this.check.byPassword(this.tenant, name, password, ip));
  }
  async byToken(token: string) {
    return asProcessUser(await this.check.byToken(this.tenant, token));
  }
}

/**
 * Type `platform` with `url`: the platform in another process, asked over HTTP with an API key of the tenant
 * (`POST /cxf/svc-core/authentication/check`), which answers the user's current roles. The platform throttles there
 * by account only (it cannot tell this engine's clients apart); the engine's own throttle reserves each attempt here
 * first, by the client's address too, so one client cannot use up an account or an address for the others.
 */
export class RemotePlatformServer implements ProcessUserServer {
  readonly supportsTokens = true;
  constructor(
    private readonly url: string,
    private readonly apiKey: string,
    private readonly guard: CredentialGuard,
  ) {}
  byPassword(name: string, password: string, ip: string) {
    const subject = { namespace: 'process-user', account: [name], address: ip };
    return this.guard.throttle.once(subject, password, async () => {
      const attempt = await this.guard.throttle.reserve(subject);
      if (!attempt.allowed) throw attempt.error;
      let user: ProcessUser | null;
      try {
        user = await this.ask({ username: name, password });
      } catch (err) {
        // Unreachable, or refused there (429) without a check: no guess was verified.
        await attempt.abandoned();
        throw err;
      }
      if (user) await attempt.succeeded();
      return user;
    });
  }
  byToken(token: string) {
    return this.ask({ token });
  }
  private async ask(body: Record<string, string>): Promise<ProcessUser | null> {
    let res: Response;
    try {
      res = await fetch(`${this.url.replace(/\/+$/, '')}/cxf/svc-core/authentication/check`, {
        method: 'POST',
        headers: { 'x-apikey': this.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      throw unavailable();
    }
    if (res.status === 401 || res.status === 400) return null;
    if (res.status === 429)
      throw ERRORS.tooManyRequests(Math.max(1, Math.ceil(Number(res.headers.get('retry-after')) || 1)));
    if (res.status !== 200) throw unavailable();
    return asProcessUser((await res.json()) as { loginName: string; roles: string[] });
  }
}

/** Type `static`: a user list in the config, for small set-ups, checked like the engine's own users; no tokens. */
export class StaticServer implements ProcessUserServer {
  readonly supportsTokens = false;
  private readonly users: EngineUsers;
  constructor(
    configured: Array<{ name: string; password?: string; passwordHash?: string; roles: string[] }>,
    guard: CredentialGuard,
  ) {
    this.users = new EngineUsers(
      configured.map((u) => ({ ...u, groups: [] })),
      guard,
      'process-user',
    );
  }
  start() {
    return this.users.start();
  }
  async byPassword(name: string, password: string, ip: string) {
    const user = await this.users.check(name, password, ip);
    return user && { name: user.name, roles: user.roles };
  }
  async byToken() {
    return null;
  }
}

/** Type `oidc`: the provider's access tokens, verified with its JWKS; passwords cannot be checked there (401). */
export class OidcServer implements ProcessUserServer {
  readonly supportsTokens = true;
  private keys?: JWTVerifyGetKey;
  constructor(
    private readonly settings: {
      issuer: string;
      jwksUrl?: string;
      audience?: string;
      rolesClaim: string;
      loginNameClaim: string;
    },
  ) {}
  async byPassword() {
    return null;
  }
  async byToken(token: string): Promise<ProcessUser | null> {
    try {
      this.keys ??= createRemoteJWKSet(new URL(this.settings.jwksUrl ?? (await this.discoverJwks())));
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
      });
      const name = claim(payload, this.settings.loginNameClaim) ?? payload.sub;
      const roles = claim(payload, this.settings.rolesClaim);
      if (typeof name !== 'string') return null;
      return { name, roles: Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [] };
    } catch {
      return null;
    }
  }

  /** The provider's JWKS address from its discovery document (when `jwksUrl` is not configured). */
  private async discoverJwks(): Promise<string> {
    const res = await fetch(`${this.settings.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, {
      signal: AbortSignal.timeout(5000),
    });
    const doc = (await res.json()) as { jwks_uri?: unknown };
    if (typeof doc.jwks_uri !== 'string') throw new Error('no jwks_uri in the discovery document');
    return doc.jwks_uri;
  }
}

function claim(payload: Record<string, unknown>, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), payload);
}

function unavailable() {
  return new AppError(503, {
    messageKey: 'ENGINE_ERROR_USER_SERVER_UNAVAILABLE',
    name: 'SERVICE_UNAVAILABLE',
    message: 'The Process User Server could not be reached',
  });
}

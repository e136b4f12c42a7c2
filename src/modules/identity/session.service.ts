import type { Static } from '@sinclair/typebox';
import type { SessionRecordSchema } from './identity.schemas.js';
import { ERRORS } from '../../platform/errors/error-catalogue.js';
import { IDENTITY_ERRORS } from './identity.errors.js';
import { hashPassword, randomToken, safeEqual, sha256Hex, verifyPassword } from '../../platform/crypto/secrets.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { UsersRepository } from './users.repository.js';
import type { SessionsRepository, LiveSession } from './sessions.repository.js';
import type { RequestMeta } from '../../platform/auth/credentials.js';
import type { User } from './identity.tables.js';
import type { CredentialThrottle, Refusal, SecurityCounters } from '../../platform/auth/throttle/index.js';
import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import type { AuditService } from './audit/audit.service.js';
import type { SessionEndings } from './session-endings.js';

/** The session record of the spec (interface-spec, Session record). */
export type SessionRecord = Static<typeof SessionRecordSchema>;

export const USER_PRINCIPAL_CLASS = 'svc.core.UserPrincipal';

export interface SessionSettings {
  ttlSeconds: number;
  passwordLoginEnabled: boolean;
  /** How long a session's user (grants, active flag) may be reused. */
  userCacheMs: number;
  /**
   * How long this process may reuse a session row: where one process owns the database (every logout, extension
   * and "end all" passes through this service), or while the change feed tells it of every ending on any instance.
   */
  sessionCacheMs: number;
  /** One process owns the database: the session cache is exact without the feed. */
  singleInstance: boolean;
}

export interface LoginInput {
  tenantname: string;
  username: string;
  password: string;
  ip: string;
  userAgent: string;
}

/** How stale `expirationDate` may get before a call writes the extension (saves a write per request). */
const EXTEND_GRANULARITY_MS = 15_000;

export class SessionService {
  private dummyHash?: Promise<string>;
  private readonly userCache = new ExpiringMap<string, User>(10_000);
  private readonly liveSessions = new ExpiringMap<string, LiveSession>(100_000);
  /** Raised by every ending heard from the feed: a session read before one is not cached after it. */
  private endingsSeen = 0;

  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly throttle: CredentialThrottle,
    private readonly counters: SecurityCounters,
    private readonly settings: SessionSettings,
    private readonly audit: AuditService,
    private readonly endings?: SessionEndings,
  ) {}

  /** Follows session endings on every instance (start of the module); returns the stop. */
  followEndings(): () => void {
    if (!this.endings) return () => undefined;
    return this.endings.listen(
      (tenantId, idHash) => {
        this.endingsSeen++;
        if (idHash) this.liveSessions.delete(idHash);
        else this.liveSessions.deleteWhere((s) => s.tenantId === tenantId);
      },
      () => {
        this.endingsSeen++;
        this.liveSessions.clear();
      },
    );
  }

  private get cacheSessions(): boolean {
    return this.settings.sessionCacheMs > 0 && (this.settings.singleInstance || this.endings?.live === true);
  }

  /**
   * Password login. Unknown tenant or user costs one password verification too (no user enumeration). The attempt is
   * reserved on the credential throttle before the password is verified; the login name is taken exactly as the
   * users table compares it, for the lookup and the throttle alike.
   */
  async login(input: LoginInput): Promise<{ sessionId: string; record: SessionRecord }> {
    const auditBase = { actor: input.username, action: 'login', remoteAddress: input.ip, userAgent: input.userAgent };
    if (!this.settings.passwordLoginEnabled) throw IDENTITY_ERRORS.passwordLoginDisabled();
    const user = await this.users.findUser(input.tenantname, input.username);
    const tenantId = user?.tenantId ?? (await this.users.findTenant(input.tenantname))?.id ?? null;
    // No tenant could read a record about a tenant that does not exist: such attempts are counted, not audited.
    if (!tenantId) this.counters.unknownTenantLogins++;
    const subject = { namespace: 'user', account: [input.tenantname, input.username], address: input.ip };
    // Concurrent logins with one password from one address are one attempt: one reservation, one verification.
    const verified = await this.throttle.once(subject, input.password, async () => {
      const attempt = await this.throttle.reserve(subject);
      if (!attempt.allowed) {
        if (tenantId) await this.auditRefusal(attempt.refusal, { ...auditBase, tenantId });
        throw attempt.error;
      }
      const hash = user?.passwordHash ?? (await this.getDummyHash());
      this.counters.passwordVerifications++;
      const passwordOk = await verifyPassword(input.password, hash);
      if (!user?.passwordHash || !passwordOk || !user.active) {
        // The reservation stays: it is this failure.
        this.counters.passwordFailures++;
        const reason = !user ? 'unknown user' : !user.active ? 'inactive user' : 'wrong password';
        if (tenantId) await this.audit.record({ ...auditBase, tenantId, outcome: 'failure', detail: { reason } });
        throw ERRORS.authenticationFailed();
      }
      await attempt.succeeded();
      return user;
    });
    await this.audit.record({ ...auditBase, tenantId, outcome: 'success' });

    const sessionId = randomToken(32);
    const csrfToken = randomToken(24);
    const expiresOn = Date.now() + this.settings.ttlSeconds * 1000;
    await this.sessions.createSession({
      idHash: sha256Hex(sessionId),
      user: verified,
      csrfToken,
      expiresOn,
      remoteAddress: input.ip,
      userAgent: input.userAgent.slice(0, 512),
    });
    return { sessionId, record: toSessionRecord(verified, csrfToken, expiresOn) };
  }

  /** The live session behind a cookie value, with its expiry slid forward; null when dead. */
  async touch(
    sessionId: string,
  ): Promise<{ user: User; csrfToken: string; expiresOn: number; sessionKey: string } | null> {
    const idHash = sha256Hex(sessionId);
    const now = Date.now();
    const live = await this.liveSession(idHash, now);
    if (!live) return null;
    const user = await this.sessionUser(live.userId, now);
    if (!user?.active) return null;
    const target = now + this.settings.ttlSeconds * 1000;
    if (target - live.expiresOn >= EXTEND_GRANULARITY_MS) {
      await this.sessions.extendSession(idHash, target);
      live.expiresOn = target;
    }
    return { user, csrfToken: live.csrfToken, expiresOn: live.expiresOn, sessionKey: idHash };
  }

  private async liveSession(idHash: string, now: number): Promise<LiveSession | undefined> {
    const cache = this.cacheSessions;
    const hit = cache ? this.liveSessions.get(idHash, now) : undefined;
    // A cached expiry may lag behind an extension written by another instance: past it, the database decides.
    if (hit && hit.expiresOn > now) return hit;
    const seen = this.endingsSeen;
    const live = await this.sessions.findLiveSession(idHash, now);
    // The cached object is the one touch() slides forward, so cache and database agree on the expiry.
    if (live && cache && seen === this.endingsSeen)
      this.liveSessions.set(idHash, live, now + this.settings.sessionCacheMs);
    return live;
  }

  private async sessionUser(userId: string, now: number): Promise<User | undefined> {
    const hit = this.userCache.get(userId, now);
    if (hit) return hit;
    const user = await this.users.findUserById(userId);
    if (user && this.settings.userCacheMs > 0) this.userCache.set(userId, user, now + this.settings.userCacheMs);
    return user;
  }

  async check(sessionId: string | undefined): Promise<SessionRecord> {
    const live = sessionId && sessionId.length <= 256 ? await this.touch(sessionId) : null;
    if (!live) throw IDENTITY_ERRORS.sessionInvalid();
    return toSessionRecord(live.user, live.csrfToken, live.expiresOn);
  }

  /**
   * Ends the session of the cookie. A live session ends only with its own CSRF token (decisions.md section 2: a
   * session's DELETE without `X-Csrf-Token` is 403); without a live session there is nothing to protect, and a
   * repeated logout stays a success.
   */
  async logout(sessionId: string | undefined, csrfToken: string | undefined, meta: RequestMeta): Promise<void> {
    if (!sessionId || sessionId.length > 256) return;
    const idHash = sha256Hex(sessionId);
    const live = await this.sessions.findLiveSession(idHash, Date.now());
    if (live && (typeof csrfToken !== 'string' || !safeEqual(csrfToken, live.csrfToken)))
      throw ERRORS.csrfTokenInvalid();
    this.liveSessions.delete(idHash);
    if (live && this.endings) await this.endings.endOne(live.tenantId, idHash);
    else await this.sessions.deleteSession(idHash);
    const user = live ? await this.users.findUserById(live.userId) : undefined;
    if (user) {
      await this.audit.record({
        tenantId: user.tenantId,
        actor: user.loginName,
        action: 'logout',
        outcome: 'success',
        remoteAddress: meta.ip,
        userAgent: meta.userAgent,
      });
    }
  }

  /** A user changed here (administration): its grants and active flag are read again on its next call. */
  forgetUser(userId: string): void {
    this.userCache.delete(userId);
  }

  /** Sessions of the tenant were ended without the change feed: this process forgets the ones it kept. */
  forgetSessions(tenantId: string): void {
    this.endingsSeen++;
    this.liveSessions.deleteWhere((s) => s.tenantId === tenantId);
  }

  /** Removes dead sessions; runs on a timer, any instance may do it. */
  async purgeExpired(): Promise<void> {
    await this.sessions.deleteExpiredSessions(Date.now());
  }

  /**
   * Refused logins are counted, not recorded one by one: one record per throttle key and window (the key that refuses
   * longest), written at the first refusal, its `refused` count replaced by later ones.
   */
  private async auditRefusal(
    refusal: Refusal,
    base: { actor: string; action: string; remoteAddress: string; userAgent: string; tenantId: string },
  ): Promise<void> {
    const key = refusal.keys[0];
    if (!key) return;
    await this.audit.recordCounted(`throttle:${key.key}:${key.windowStart}`, {
      ...base,
      outcome: 'failure',
      detail: {
        reason: 'throttled',
        throttle: key.kind,
        refused: key.refused,
        retryAfterSeconds: refusal.retryAfterSeconds,
      },
    });
  }

  /** Ends every session of the caller's tenant; the next call of each answers 401 on every instance. */
  async endAllSessions(caller: Principal, meta: RequestMeta): Promise<number> {
    const { tenantId } = caller;
    this.liveSessions.deleteWhere((s) => s.tenantId === tenantId);
    const deleted = this.endings
      ? await this.endings.endTenant(tenantId)
      : await this.sessions.deleteTenantSessions(tenantId);
    await this.audit.record({
      tenantId,
      actor: caller.loginName,
      action: 'sessions.endAll',
      outcome: 'success',
      remoteAddress: meta.ip,
      userAgent: meta.userAgent,
      detail: { deleted },
    });
    return deleted;
  }

  async principalFromSession(sessionId: string): Promise<Principal | null> {
    const live = await this.touch(sessionId);
    if (!live) return null;
    const u = live.user;
    return {
      kind: 'session',
      tenantId: u.tenantId,
      tenant: u.tenant,
      loginName: u.loginName,
      organisations: u.organisations,
      roles: u.roles,
      rights: u.rights,
      csrfToken: live.csrfToken,
      sessionKey: live.sessionKey,
      userId: u.id,
    };
  }

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= hashPassword(randomToken(16));
    return this.dummyHash;
  }
}

export function toSessionRecord(user: User, csrfToken: string, expiresOn: number): SessionRecord {
  return {
    loginName: user.loginName,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    organisations: user.organisations,
    inactiveOrganisations: user.inactiveOrganisations,
    roles: user.roles,
    rights: user.rights,
    principals: { 'X-Csrf-Token': [csrfToken], [USER_PRINCIPAL_CLASS]: [user.loginName] },
    customData: user.customData,
    expirationDate: expiresOn,
  };
}

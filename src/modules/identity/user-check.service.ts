import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import { hashPassword, randomToken, sha256Hex, verifyPassword } from '../../platform/crypto/secrets.js';
import type { UsersRepository } from './users.repository.js';
import type { TokenService } from './tokens/token.service.js';
import type { CredentialThrottle, SecurityCounters, ThrottleSubject } from '../../platform/auth/throttle/index.js';

/** A user of a tenant as another system needs it to decide what the user may see: current grants. */
export interface CheckedUser {
  loginName: string;
  roles: string[];
  organisations: string[];
  rights: string[];
}

/**
 * Checks a user's credentials for a system that keeps no users of its own (the process engine's Process User Server):
 * a password or an access token, answered with the user's grants as they are now (read on every check, so a changed
 * role counts from the next call). A verified password is remembered for `verifiedTtlMs` under a hash of the user,
 * its stored password hash and the password (never the password itself): scrypt on every call would cost ~50 ms, and
 * a changed password changes the key, so the old one stops working at once. Every check passes the credential throttle
 * first: a verification reserves an attempt, a remembered password reads the throttle's state (it verifies no new
 * guess, yet answers 429 while the keys are throttled, so the cache is no way around the throttle).
 */
export class UserCheckService {
  private readonly verified = new ExpiringMap<string, true>(10_000);
  private dummyHash?: Promise<string>;

  constructor(
    private readonly users: UsersRepository,
    private readonly tokens: TokenService,
    private readonly throttle: CredentialThrottle,
    private readonly counters: SecurityCounters,
    private readonly verifiedTtlMs: number,
  ) {}

  /**
   * `ip`: the client's address; absent when the caller is a relay for its own clients (an engine apart, through
   * `authentication/check`), which throttles their addresses itself: only the account's budget applies here, so that
   * one client of the relay cannot use up the relay's address for all the others.
   */
  async byPassword(
    tenant: string,
    loginName: string,
    password: string,
    ip: string | undefined,
  ): Promise<CheckedUser | null> {
    const user = await this.users.findUser(tenant, loginName);
    const subject: ThrottleSubject = { namespace: 'user', account: [tenant, loginName], address: ip };
    const key = user?.passwordHash ? sha256Hex(`${user.id}\u0000${user.passwordHash}\u0000${password}`) : undefined;
    if (user?.active && key && this.verified.get(key)) {
      const open = await this.throttle.check(subject);
      if (!open.allowed) throw open.error;
      return checked(user);
    }
    return this.throttle.once(subject, password, async () => {
      const attempt = await this.throttle.reserve(subject);
      if (!attempt.allowed) throw attempt.error;
      this.counters.passwordVerifications++;
      const ok = await verifyPassword(password, user?.passwordHash ?? (await this.getDummyHash()));
      if (!user?.active || !user.passwordHash || !ok || !key) {
        this.counters.passwordFailures++;
        return null;
      }
      await attempt.succeeded();
      this.verified.set(key, true, Date.now() + this.verifiedTtlMs);
      return checked(user);
    });
  }

  /** A platform access token (or one of the configured OIDC issuer) of the tenant, with the subject's current grants. */
  async byToken(tenant: string, token: string): Promise<CheckedUser | null> {
    const principal = await this.tokens.verify(token);
    if (!principal || principal.tenant !== tenant) return null;
    const user = await this.users.findUser(tenant, principal.loginName);
    if (user) return user.active ? checked(user) : null;
    // No user of that name: a token minted from an API key, with the key's grants as the token carries them.
    return checked(principal);
  }

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= hashPassword(randomToken(16));
    return this.dummyHash;
  }
}

function checked(user: { loginName: string; roles: string[]; organisations: string[]; rights: string[] }): CheckedUser {
  return { loginName: user.loginName, roles: user.roles, organisations: user.organisations, rights: user.rights };
}

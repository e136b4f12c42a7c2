import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import { hashPassword, sha256Hex, verifyPassword } from '../../platform/crypto/secrets.js';
import type { CredentialThrottle, SecurityCounters, ThrottleSubject } from '../../platform/auth/throttle/index.js';

export interface EngineUserConfig {
  name: string;
  password?: string;
  passwordHash?: string;
  groups: string[];
  roles: string[];
}

export interface EngineUser {
  name: string;
  groups: string[];
  roles: string[];
}

/** The credential throttle and the counters every password check of the engine goes through. */
export interface CredentialGuard {
  throttle: CredentialThrottle;
  counters: SecurityCounters;
}

/**
 * The process-engine users of the config, checked by HTTP Basic. Passwords are hashed at start (scrypt); a verified
 * password is remembered for 30 s under a hash of user, stored hash and password, so Basic does not cost a scrypt per
 * call. Every check passes the credential throttle first (accounts of `namespace`): a verification reserves an
 * attempt, a remembered password only reads the throttle's state, yet is refused (429) while the keys are throttled,
 * so the cache never answers a guess the throttle would stop.
 */
export class EngineUsers {
  private readonly users = new Map<string, EngineUser & { hash: string }>();
  private readonly verified = new ExpiringMap<string, true>(10_000);
  private dummy?: string;

  constructor(
    private readonly configured: EngineUserConfig[],
    private readonly guard: CredentialGuard,
    private readonly namespace = 'engine',
  ) {}

  async start(): Promise<void> {
    for (const u of this.configured) {
      const hash = u.passwordHash ?? (u.password ? await hashPassword(u.password) : undefined);
      if (hash) this.users.set(u.name, { name: u.name, groups: u.groups, roles: u.roles, hash });
    }
    this.dummy = await hashPassword('not-a-user-password');
  }

  /** The user whose password this is, or null; 429 (AppError) while the throttle refuses the name or the address. */
  async check(name: string, password: string, address: string): Promise<EngineUser | null> {
    const user = this.users.get(name);
    const subject: ThrottleSubject = { namespace: this.namespace, account: [name], address };
    const key = user ? sha256Hex(`${name}\u0000${user.hash}\u0000${password}`) : undefined;
    if (user && key && this.verified.get(key)) {
      const open = await this.guard.throttle.check(subject);
      if (!open.allowed) throw open.error;
      return strip(user);
    }
    return this.guard.throttle.once(subject, password, async () => {
      const attempt = await this.guard.throttle.reserve(subject);
      if (!attempt.allowed) throw attempt.error;
      // An unknown name costs a verification too (no user enumeration by timing).
      this.guard.counters.passwordVerifications++;
      const ok = await verifyPassword(password, user?.hash ?? this.dummy!);
      if (!user || !ok || !key) {
        this.guard.counters.passwordFailures++;
        return null;
      }
      await attempt.succeeded();
      this.verified.set(key, true, Date.now() + 30_000);
      return strip(user);
    });
  }
}

const strip = ({ name, groups, roles }: EngineUser): EngineUser => ({ name, groups, roles });

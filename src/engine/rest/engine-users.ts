import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import { hashPassword, sha256Hex, verifyPassword } from '../../platform/crypto/secrets.js';

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

/**
 * The process-engine users of the config, checked by HTTP Basic. Passwords are hashed at start (scrypt); a verified
 * password is remembered for 30 s under a hash of user, stored hash and password, so Basic does not cost a scrypt per call.
 */
export class EngineUsers {
  private readonly users = new Map<string, EngineUser & { hash: string }>();
  private readonly verified = new ExpiringMap<string, true>(10_000);
  private dummy?: string;

  constructor(private readonly configured: EngineUserConfig[]) {}

  async start(): Promise<void> {
    for (const u of this.configured) {
      const hash = u.passwordHash ?? (u.password ? await hashPassword(u.password) : undefined);
      if (hash) this.users.set(u.name, { name: u.name, groups: u.groups, roles: u.roles, hash });
    }
    this.dummy = await hashPassword('not-a-user-password');
  }

  async check(name: string, password: string): Promise<EngineUser | null> {
    const user = this.users.get(name);
    const key = user ? sha256Hex(`${name}\u0000${user.hash}\u0000${password}`) : undefined;
    if (user && key && this.verified.get(key)) return strip(user);
    // An unknown name costs a verification too (no user enumeration by timing).
    const ok = await verifyPassword(password, user?.hash ?? this.dummy!);
    if (!user || !ok || !key) return null;
    this.verified.set(key, true, Date.now() + 30_000);
    return strip(user);
  }
}

const strip = ({ name, groups, roles }: EngineUser): EngineUser => ({ name, groups, roles });

import { hashPassword, isPasswordHash, randomToken, sha256Hex, verifyPassword } from '../../platform/crypto/secrets.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { UsersRepository, UserFields } from './users.repository.js';
import type { ApiKey, User } from './identity.tables.js';
import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import { SingleFlight } from '../../platform/async/single-flight.js';

export const BOOTSTRAP_TENANT = 'default';
export const BOOTSTRAP_ADMIN = 'admin';
/** The role (or right) of a tenant's administrators: users, API keys and sessions of their own tenant over HTTP. */
export const TENANT_ADMIN = 'TENANT_ADMIN';
export const BOOTSTRAP_ROLES = ['ADMIN', 'FORMS_ADMIN', 'NOTIFICATION_ADMIN', TENANT_ADMIN];

/** API keys are stored as `sha256:<hex>`; a config may give either the key or that hash. */
export const hashApiKey = (key: string) => `sha256:${sha256Hex(key)}`;

export function normaliseKeyHash(keyHash: string): string {
  const hex = keyHash.replace(/^sha256:/, '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex))
    throw new Error('keyHash must be a SHA-256 hex digest (optionally prefixed sha256:)');
  return `sha256:${hex}`;
}

export interface UserChange extends Omit<UserFields, 'passwordHash'> {
  password?: string;
  passwordHash?: string;
}

export interface ApiKeyChange {
  key?: string;
  keyHash?: string;
  organisations?: string[];
  roles?: string[];
  rights?: string[];
  expiresOn?: number | null;
}

/** Users, API keys and tenants: provisioning from config, the admin CLI, and API-key credentials. */
export class IdentityService {
  /** Recent API-key lookups by key hash: keys are checked on every request, and change rarely. */
  private readonly keyCache = new ExpiringMap<string, ApiKey>(10_000);
  /** Lookups of a key hash under way: a burst of requests with one key (a cold start, an expired entry) makes one. */
  private readonly keyLookups = new SingleFlight<string, ApiKey | undefined>();
  /** Raised by every revocation heard of. */
  private revocationsSeen = 0;

  constructor(
    private readonly repo: UsersRepository,
    private readonly apiKeyCacheMs = 0,
  ) {}

  async setUser(tenant: string, loginName: string, change: UserChange): Promise<void> {
    const { password, passwordHash, ...fields } = change;
    let newHash: string | undefined;
    if (passwordHash !== undefined) {
      if (!isPasswordHash(passwordHash)) throw new Error(`passwordHash of ${loginName} is not an scrypt hash`);
      newHash = passwordHash;
    } else if (password !== undefined) {
      // Idempotent provisioning: keep the stored hash while it still matches the configured password.
      const existing = await this.repo.findUser(tenant, loginName);
      const unchanged = existing?.passwordHash ? await verifyPassword(password, existing.passwordHash) : false;
      if (!unchanged) newHash = await hashPassword(password);
    }
    await this.repo.upsertUser(tenant, loginName, { ...fields, ...(newHash ? { passwordHash: newHash } : {}) });
  }

  /** Creates or replaces a key. Without `key` or `keyHash` a new random key is made and returned (shown once). */
  async setApiKey(tenant: string, name: string, change: ApiKeyChange): Promise<string | undefined> {
    let plain: string | undefined;
    let keyHash: string;
    if (change.keyHash) keyHash = normaliseKeyHash(change.keyHash);
    else {
      plain = change.key ?? `sk-${randomToken(32)}`;
      keyHash = hashApiKey(plain);
    }
    await this.repo.upsertApiKey(tenant, name, {
      keyHash,
      organisations: change.organisations,
      roles: change.roles,
      rights: change.rights,
      expiresOn: change.expiresOn,
    });
    return change.key ? undefined : plain;
  }

  listUsers(tenant?: string): Promise<User[]> {
    return this.repo.listUsers(tenant);
  }

  listApiKeys(tenant?: string): Promise<ApiKey[]> {
    return this.repo.listApiKeys(tenant);
  }

  findUser(tenant: string, loginName: string): Promise<User | undefined> {
    return this.repo.findUser(tenant, loginName);
  }

  /** True before the first start has put any user in the database. */
  async isEmpty(): Promise<boolean> {
    return (await this.repo.countUsers()) === 0;
  }

  /**
   * First start (decisions.md section 0): tenant `default` with user `admin`, unless the config provisioned that
   * user itself. Returns the generated password when none was given, so the caller can print it once.
   */
  async bootstrapAdmin(password?: string): Promise<{ created: boolean; generatedPassword?: string }> {
    if (await this.repo.findUser(BOOTSTRAP_TENANT, BOOTSTRAP_ADMIN)) return { created: false };
    const generated = password ? undefined : randomToken(18);
    await this.setUser(BOOTSTRAP_TENANT, BOOTSTRAP_ADMIN, { password: password ?? generated, roles: BOOTSTRAP_ROLES });
    return { created: true, generatedPassword: generated };
  }

  /** A key was revoked (here or on another instance): what this instance cached of keys is forgotten. */
  forgetApiKeys(): void {
    this.revocationsSeen++;
    this.keyCache.clear();
  }

  /**
   * The principal of an API key, or null for an unknown or expired one. A key whose lookup is cached answers at once,
   * without a promise (this runs on every API-key request); only a lookup in the database answers a promise.
   */
  principalFromApiKey(key: string): Principal | null | Promise<Principal | null> {
    const hash = hashApiKey(key);
    const now = Date.now();
    const cached = this.keyCache.get(hash, now);
    return cached ? principalOfKey(cached, now) : this.lookUpApiKey(hash, now);
  }

  private async lookUpApiKey(hash: string, now: number): Promise<Principal | null> {
    const seen = this.revocationsSeen;
    const apiKey = await this.keyLookups.run(hash, () => this.repo.findApiKeyByHash(hash));
    if (!apiKey) return null;
    // A lookup that a revocation overtook is not cached: it may have read the key just before it went.
    if (this.apiKeyCacheMs > 0 && seen === this.revocationsSeen)
      this.keyCache.set(hash, apiKey, now + this.apiKeyCacheMs);
    return principalOfKey(apiKey, now);
  }
}

/** The principal an API key stands for; null once it has expired (checked on every use, cached or not). */
function principalOfKey(apiKey: ApiKey, now: number): Principal | null {
  if (apiKey.expiresOn !== null && apiKey.expiresOn <= now) return null;
  return {
    kind: 'apiKey',
    tenantId: apiKey.tenantId,
    tenant: apiKey.tenant,
    loginName: apiKey.name,
    organisations: apiKey.organisations,
    roles: apiKey.roles,
    rights: apiKey.rights,
  };
}

import type { Kysely } from 'kysely';
import { hashPassword, randomToken } from '../../../platform/crypto/secrets.js';
import type { CredentialThrottle } from '../../../platform/auth/throttle/index.js';
import type { AuditEntry } from '../../../platform/audit/audit-trail.js';
import { IDENTITY_ERRORS } from '../identity.errors.js';
import { hashApiKey } from '../identity.service.js';
import type { IdentityTables } from '../identity.tables.js';
import type { SessionsRepository } from '../sessions.repository.js';
import type { SessionEndings } from '../session-endings.js';
import type { KeyRevocations } from '../key-revocations.js';
import type { AdminApiKey, AdminRepository, AdminUser, AdminUserFields } from './admin.repository.js';

/** Who administers, and from where: a tenant administrator over HTTP, or the admin CLI. */
export interface AdminCaller {
  /** The tenant administered: the caller's own (a tenant administrator never names another). */
  tenantId: string;
  tenant: string;
  /** The audit log's actor. */
  actor: string;
  /** The caller's own login name when the caller is a user of this tenant (not an API key, not the CLI). */
  selfLogin?: string;
  remoteAddress: string;
  userAgent: string;
}

export interface NewUser extends Omit<AdminUserFields, 'passwordHash'> {
  loginName: string;
  password?: string;
}

export type UserUpdate = Omit<AdminUserFields, 'passwordHash'>;

export interface NewApiKey {
  name: string;
  organisations?: string[];
  roles?: string[];
  rights?: string[];
  expiresOn?: number | null;
}

export interface SessionInfo {
  id: string;
  createdOn: number;
  expiresOn: number;
  remoteAddress: string;
  userAgent: string;
}

/** What administration needs of the rest of the module. */
export interface AdminDeps {
  repo: AdminRepository;
  sessions: SessionsRepository;
  throttle: CredentialThrottle;
  audit: { record(entry: AuditEntry): Promise<void> };
  /** Ends sessions on every instance (absent: rows are deleted, and this process's caches are told directly). */
  endings?: SessionEndings;
  revocations?: KeyRevocations;
  /** This process's caches of users and keys, told at once of a change made here. */
  forgetUser(userId: string): void;
  forgetApiKeys(): void;
  /** Where no change feed carries endings: the session rows this process keeps in memory. */
  forgetSessions(tenantId: string): void;
}

/** The password rules of administration: at least 8 characters (the login form takes up to 1024). */
export const ADMIN_PASSWORD_MIN = 8;

/**
 * Identity administration of one tenant: users, API keys, sessions and the throttle's hold on an account. Every
 * change is audited with its actor; a change that ends sessions ends them in the same transaction, on every instance.
 */
export class AdminService {
  constructor(private readonly d: AdminDeps) {}

  listUsers(c: AdminCaller, pattern: string | undefined, start: number, limit: number) {
    return this.d.repo.listUsers(c.tenantId, pattern, start, limit);
  }

  async getUser(c: AdminCaller, loginName: string): Promise<AdminUser> {
    const user = await this.d.repo.findUser(c.tenantId, loginName);
    if (!user) throw IDENTITY_ERRORS.userNotFound(loginName);
    return user;
  }

  async createUser(c: AdminCaller, input: NewUser): Promise<AdminUser> {
    const { loginName, password, ...fields } = input;
    if (await this.d.repo.findUser(c.tenantId, loginName)) throw IDENTITY_ERRORS.userExists(loginName);
    const passwordHash = password === undefined ? undefined : await hashPassword(password);
    await this.d.repo.insertUser(c.tenantId, loginName, { ...fields, passwordHash });
    await this.record(c, 'admin.user.create', { loginName, fields: changedFields(fields, password) });
    return this.getUser(c, loginName);
  }

  /** Changes the given fields; a deactivation ends the user's sessions with it. */
  async updateUser(c: AdminCaller, loginName: string, change: UserUpdate): Promise<AdminUser> {
    const user = await this.getUser(c, loginName);
    if (change.active === false && c.selfLogin === loginName) throw IDENTITY_ERRORS.notOnYourself('deactivate');
    let ended = 0;
    if (change.active === false) {
      ended = (
        await this.endSessionsWith(c, user.id, (trx) => this.d.repo.updateUser(c.tenantId, user.id, change, trx))
      ).ended;
    } else {
      await this.d.repo.updateUser(c.tenantId, user.id, change);
    }
    this.d.forgetUser(user.id);
    await this.record(c, 'admin.user.update', { loginName, fields: changedFields(change), sessionsEnded: ended });
    return this.getUser(c, loginName);
  }

  /** Deletes the user and ends its sessions; a user the config file made stays deleted at the next start. */
  async deleteUser(c: AdminCaller, loginName: string): Promise<{ sessionsEnded: number }> {
    const user = await this.getUser(c, loginName);
    if (c.selfLogin === loginName) throw IDENTITY_ERRORS.notOnYourself('delete');
    const { ended } = await this.endSessionsWith(c, user.id, async (trx) => {
      await this.d.repo.markProvisionedDeleted(c.tenantId, 'user', loginName, trx);
      await this.d.repo.deleteUser(c.tenantId, user.id, trx);
    });
    this.d.forgetUser(user.id);
    await this.record(c, 'admin.user.delete', { loginName, sessionsEnded: ended });
    return { sessionsEnded: ended };
  }

  /** Sets a password (hashed as every password is) and ends every session of the user. */
  async setPassword(c: AdminCaller, loginName: string, password: string): Promise<{ sessionsEnded: number }> {
    const user = await this.getUser(c, loginName);
    const passwordHash = await hashPassword(password);
    const { ended } = await this.endSessionsWith(c, user.id, (trx) =>
      this.d.repo.updateUser(c.tenantId, user.id, { passwordHash }, trx),
    );
    await this.record(c, 'admin.user.password', { loginName, sessionsEnded: ended });
    return { sessionsEnded: ended };
  }

  async listSessions(c: AdminCaller, loginName: string): Promise<SessionInfo[]> {
    const user = await this.getUser(c, loginName);
    const rows = await this.d.sessions.listUserSessions(user.id, Date.now());
    return rows.map((r) => ({
      id: r.id_hash,
      createdOn: Number(r.created_on),
      expiresOn: Number(r.expires_on),
      remoteAddress: r.remote_address,
      userAgent: r.user_agent,
    }));
  }

  /** Ends one session of the user (`id` as listed), or all of them; answers how many ended. */
  async endSessions(c: AdminCaller, loginName: string, id?: string): Promise<{ sessionsEnded: number }> {
    const user = await this.getUser(c, loginName);
    const { ended } = await this.endSessionsWith(c, user.id, async () => undefined, id);
    if (id !== undefined && ended === 0) throw IDENTITY_ERRORS.sessionNotFound();
    await this.record(c, 'admin.sessions.end', { loginName, ...(id ? { session: id } : {}), sessionsEnded: ended });
    return { sessionsEnded: ended };
  }

  /** Lifts the login throttle's hold on the account (its failures from every address); answers whether it had one. */
  async unlock(c: AdminCaller, loginName: string): Promise<{ wasHeld: boolean }> {
    await this.getUser(c, loginName);
    const wasHeld = await this.d.throttle.unlock('user', [c.tenant, loginName]);
    await this.record(c, 'admin.user.unlock', { loginName, wasHeld });
    return { wasHeld };
  }

  listApiKeys(c: AdminCaller, start: number, limit: number) {
    return this.d.repo.listApiKeys(c.tenantId, start, limit);
  }

  /** A new key with a random secret, answered this once; only its hash is stored. */
  async createApiKey(c: AdminCaller, input: NewApiKey): Promise<{ key: string; apiKey: AdminApiKey }> {
    if (await this.d.repo.findApiKey(c.tenantId, input.name)) throw IDENTITY_ERRORS.apiKeyExists(input.name);
    const key = `sk-${randomToken(32)}`;
    await this.d.repo.insertApiKey(c.tenantId, input.name, {
      keyHash: hashApiKey(key),
      organisations: input.organisations ?? [],
      roles: input.roles ?? [],
      rights: input.rights ?? [],
      expiresOn: input.expiresOn ?? null,
    });
    const { name, ...grants } = input;
    await this.record(c, 'admin.apikey.create', { name, fields: Object.keys(grants) });
    return { key, apiKey: (await this.d.repo.findApiKey(c.tenantId, name))! };
  }

  /** Deletes the key; it stops working at once on every instance. */
  async revokeApiKey(c: AdminCaller, name: string): Promise<void> {
    const found = await this.revoking(c, async (trx) => {
      await this.d.repo.markProvisionedDeleted(c.tenantId, 'apiKey', name, trx);
      return this.d.repo.deleteApiKey(c.tenantId, name, trx);
    });
    if (!found) throw IDENTITY_ERRORS.apiKeyNotFound(name);
    await this.record(c, 'admin.apikey.revoke', { name });
  }

  /** Sets or clears the key's expiry; a past date stops it at once on every instance. */
  async setApiKeyExpiry(c: AdminCaller, name: string, expiresOn: number | null): Promise<AdminApiKey> {
    const found = await this.revoking(c, (trx) => this.d.repo.setApiKeyExpiry(c.tenantId, name, expiresOn, trx));
    if (!found) throw IDENTITY_ERRORS.apiKeyNotFound(name);
    await this.record(c, 'admin.apikey.expiry', {
      name,
      expiresOn: expiresOn === null ? null : new Date(expiresOn).toISOString(),
    });
    return (await this.d.repo.findApiKey(c.tenantId, name))!;
  }

  private async revoking<T>(c: AdminCaller, work: (trx: Kysely<IdentityTables>) => Promise<T>): Promise<T> {
    const result = this.d.revocations
      ? await this.d.revocations.revoke(c.tenantId, work)
      : await this.d.repo.transaction(work);
    this.d.forgetApiKeys();
    return result;
  }

  private async endSessionsWith<T>(
    c: AdminCaller,
    userId: string,
    work: (trx: Kysely<IdentityTables>) => Promise<T>,
    idHash?: string,
  ): Promise<{ ended: number; result: T }> {
    if (this.d.endings) return this.d.endings.endUser(c.tenantId, userId, work, idHash);
    const out = await this.d.repo.transaction(async (trx) => {
      const ended = (await this.d.sessions.deleteUserSessions(userId, trx, idHash)).length;
      return { ended, result: await work(trx) };
    });
    this.d.forgetSessions(c.tenantId);
    return out;
  }

  private record(c: AdminCaller, action: string, detail: Record<string, unknown>): Promise<void> {
    return this.d.audit.record({
      tenantId: c.tenantId,
      actor: c.actor,
      action,
      outcome: 'success',
      remoteAddress: c.remoteAddress,
      userAgent: c.userAgent,
      detail,
    });
  }
}

/** The names of the fields a change sets, for the audit log (never their values: a password is among them). */
function changedFields(fields: object, password?: string): string[] {
  const names = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  return password === undefined ? names : [...names, 'password'];
}

import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../../platform/db/dialects/dialect.js';
import type { DataAccess } from '../../../platform/db/data-access.js';
import type { ApiKeyRow, IdentityTables, UserRow } from '../identity.tables.js';

/** A user as an administrator sees it: everything but the password hash, which only says whether there is one. */
export interface AdminUser {
  id: string;
  loginName: string;
  email: string;
  firstName: string;
  lastName: string;
  organisations: string[];
  inactiveOrganisations: string[];
  roles: string[];
  rights: string[];
  customData: Record<string, unknown>;
  active: boolean;
  hasPassword: boolean;
  createdOn: number;
  updatedOn: number;
}

export interface AdminApiKey {
  id: string;
  name: string;
  organisations: string[];
  roles: string[];
  rights: string[];
  expiresOn: number | null;
  createdOn: number;
  updatedOn: number;
}

export interface AdminTenant {
  id: string;
  name: string;
  active: boolean;
  createdOn: number;
}

/** The fields an administrator sets on a user; undefined keeps the value. */
export interface AdminUserFields {
  passwordHash?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  organisations?: string[];
  inactiveOrganisations?: string[];
  roles?: string[];
  rights?: string[];
  customData?: Record<string, unknown>;
  active?: boolean;
}

type Db = Kysely<IdentityTables>;

/**
 * The SQL of identity administration. Every statement names the tenant's id (the caller's, or the one a platform
 * administrator named): a tenant administrator's request cannot reach a row of another tenant.
 */
export class AdminRepository {
  private readonly db: Db;

  constructor(
    data: DataAccess<IdentityTables>,
    private readonly dialect: Dialect,
  ) {
    this.db = data.db;
  }

  /** Runs `work` in one transaction (where no change feed is at hand to carry an event with it). */
  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  private toUser(r: UserRow): AdminUser {
    const j = this.dialect.fromJson.bind(this.dialect);
    return {
      id: r.id,
      loginName: r.login_name,
      email: r.email,
      firstName: r.first_name,
      lastName: r.last_name,
      organisations: j<string[]>(r.organisations),
      inactiveOrganisations: j<string[]>(r.inactive_organisations),
      roles: j<string[]>(r.roles),
      rights: j<string[]>(r.rights),
      customData: j<Record<string, unknown>>(r.custom_data),
      active: Number(r.active) === 1,
      hasPassword: r.password_hash !== null,
      createdOn: Number(r.created_on),
      updatedOn: Number(r.updated_on),
    };
  }

  private toApiKey(r: ApiKeyRow): AdminApiKey {
    const j = this.dialect.fromJson.bind(this.dialect);
    return {
      id: r.id,
      name: r.name,
      organisations: j<string[]>(r.organisations),
      roles: j<string[]>(r.roles),
      rights: j<string[]>(r.rights),
      expiresOn: r.expires_on === null ? null : Number(r.expires_on),
      createdOn: Number(r.created_on),
      updatedOn: Number(r.updated_on),
    };
  }

  /** `pattern`: a LIKE pattern (backslash escapes) matched case-insensitively against login name, email and names. */
  async listUsers(
    tenantId: string,
    pattern: string | undefined,
    start: number,
    limit: number,
  ): Promise<{ total: number; items: AdminUser[] }> {
    let base = this.db.selectFrom('users').where('tenant_id', '=', tenantId);
    if (pattern !== undefined) {
      const p = pattern.toLowerCase();
      const like = (column: string) => sql`lower(${sql.ref(column)}) like ${p} escape '\\'`;
      const columns = ['login_name', 'email', 'first_name', 'last_name'].map(like);
      base = base.where(sql<boolean>`(${sql.join(columns, sql` or `)})`);
    }
    const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base.selectAll().orderBy('login_name').offset(start).limit(limit).execute();
    return { total: Number(n), items: rows.map((r) => this.toUser(r)) };
  }

  async findUser(tenantId: string, loginName: string, db: Db = this.db): Promise<AdminUser | undefined> {
    const row = await db
      .selectFrom('users')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('login_name', '=', loginName)
      .executeTakeFirst();
    return row ? this.toUser(row) : undefined;
  }

  /** A new user; a unique violation (the login name is taken) becomes 409 in the error handler. */
  async insertUser(tenantId: string, loginName: string, f: AdminUserFields, db: Db = this.db): Promise<void> {
    const now = Date.now();
    const j = (v: unknown) => this.dialect.toJson(v);
    await db
      .insertInto('users')
      .values({
        id: randomUUID(),
        tenant_id: tenantId,
        login_name: loginName,
        password_hash: f.passwordHash ?? null,
        email: f.email ?? '',
        first_name: f.firstName ?? '',
        last_name: f.lastName ?? '',
        organisations: j(f.organisations ?? []),
        inactive_organisations: j(f.inactiveOrganisations ?? []),
        roles: j(f.roles ?? []),
        rights: j(f.rights ?? []),
        custom_data: j(f.customData ?? {}),
        active: f.active === false ? 0 : 1,
        created_on: now,
        updated_on: now,
      })
      .execute();
  }

  async updateUser(tenantId: string, userId: string, f: AdminUserFields, db: Db = this.db): Promise<void> {
    const j = (v: unknown) => this.dialect.toJson(v);
    const changes: Partial<UserRow> = {};
    if (f.passwordHash !== undefined) changes.password_hash = f.passwordHash;
    if (f.email !== undefined) changes.email = f.email;
    if (f.firstName !== undefined) changes.first_name = f.firstName;
    if (f.lastName !== undefined) changes.last_name = f.lastName;
    if (f.organisations !== undefined) changes.organisations = j(f.organisations);
    if (f.inactiveOrganisations !== undefined) changes.inactive_organisations = j(f.inactiveOrganisations);
    if (f.roles !== undefined) changes.roles = j(f.roles);
    if (f.rights !== undefined) changes.rights = j(f.rights);
    if (f.customData !== undefined) changes.custom_data = j(f.customData);
    if (f.active !== undefined) changes.active = f.active ? 1 : 0;
    await db
      .updateTable('users')
      .set({ ...changes, updated_on: Date.now() })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', userId)
      .execute();
  }

  async deleteUser(tenantId: string, userId: string, db: Db = this.db): Promise<void> {
    await db.deleteFrom('users').where('tenant_id', '=', tenantId).where('id', '=', userId).execute();
  }

  async listApiKeys(tenantId: string, start: number, limit: number): Promise<{ total: number; items: AdminApiKey[] }> {
    const base = this.db.selectFrom('api_keys').where('tenant_id', '=', tenantId);
    const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base.selectAll().orderBy('name').offset(start).limit(limit).execute();
    return { total: Number(n), items: rows.map((r) => this.toApiKey(r)) };
  }

  async findApiKey(tenantId: string, name: string, db: Db = this.db): Promise<AdminApiKey | undefined> {
    const row = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? this.toApiKey(row) : undefined;
  }

  async insertApiKey(
    tenantId: string,
    name: string,
    f: { keyHash: string; organisations: string[]; roles: string[]; rights: string[]; expiresOn: number | null },
  ): Promise<void> {
    const now = Date.now();
    const j = (v: unknown) => this.dialect.toJson(v);
    await this.db
      .insertInto('api_keys')
      .values({
        id: randomUUID(),
        tenant_id: tenantId,
        name,
        key_hash: f.keyHash,
        organisations: j(f.organisations),
        roles: j(f.roles),
        rights: j(f.rights),
        expires_on: f.expiresOn,
        created_on: now,
        updated_on: now,
      })
      .execute();
  }

  /** Answers whether a key of that name was there. */
  async deleteApiKey(tenantId: string, name: string, db: Db = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('api_keys')
      .where('tenant_id', '=', tenantId)
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async setApiKeyExpiry(tenantId: string, name: string, expiresOn: number | null, db: Db = this.db): Promise<boolean> {
    const r = await db
      .updateTable('api_keys')
      .set({ expires_on: expiresOn, updated_on: Date.now() })
      .where('tenant_id', '=', tenantId)
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** The config file's record of a user or key is kept, marked deleted: the next start does not bring it back. */
  async markProvisionedDeleted(tenantId: string, kind: 'user' | 'apiKey', name: string, db: Db = this.db) {
    await db
      .updateTable('provisioned')
      .set({ deleted: 1, updated_on: Date.now() })
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .execute();
  }

  async findTenant(name: string): Promise<AdminTenant | undefined> {
    const row = await this.db.selectFrom('tenants').selectAll().where('name', '=', name).executeTakeFirst();
    return row
      ? { id: row.id, name: row.name, active: Number(row.active) === 1, createdOn: Number(row.created_on) }
      : undefined;
  }

  async listTenants(start: number, limit: number): Promise<{ total: number; items: AdminTenant[] }> {
    const { n } = await this.db
      .selectFrom('tenants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const rows = await this.db.selectFrom('tenants').selectAll().orderBy('name').offset(start).limit(limit).execute();
    return {
      total: Number(n),
      items: rows.map((r) => ({
        id: r.id,
        name: r.name,
        active: Number(r.active) === 1,
        createdOn: Number(r.created_on),
      })),
    };
  }

  async insertTenant(name: string, db: Db = this.db): Promise<string> {
    const id = randomUUID();
    await db.insertInto('tenants').values({ id, name, created_on: Date.now(), active: 1 }).execute();
    return id;
  }

  async setTenantActive(tenantId: string, active: boolean, db: Db = this.db): Promise<void> {
    await db
      .updateTable('tenants')
      .set({ active: active ? 1 : 0 })
      .where('id', '=', tenantId)
      .execute();
  }
}

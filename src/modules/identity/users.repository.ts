import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { prepareQuery } from '../../platform/db/prepared-query.js';
import { accessOf, type DataAccess, type QueryTarget } from '../../platform/db/data-access.js';
import type { ApiKey, ApiKeyRow, IdentityTables, User, UserRow } from './identity.tables.js';

export interface UserFields {
  passwordHash?: string | null;
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

export interface ApiKeyFields {
  keyHash: string;
  organisations?: string[];
  roles?: string[];
  rights?: string[];
  expiresOn?: number | null;
}

/**
 * Tenants, users and API keys. Administration names the tenant (by name); the two per-request lookups do not
 * need to: an API key is found by its hash and a session's user by its id, both unique across tenants, and the
 * row found carries its tenant, which becomes the principal's.
 */
export class UsersRepository {
  // Credential lookups run on every request: built and compiled once.
  private readonly apiKeyByHash;
  private readonly userById;

  private readonly data: DataAccess<IdentityTables>;
  private readonly db: Kysely<IdentityTables>;

  /** `target`: the database's handle (the module's), or a Kysely instance (the admin CLI's). */
  constructor(
    target: QueryTarget<IdentityTables>,
    private readonly dialect: Dialect,
  ) {
    this.data = accessOf(target);
    const db = (this.db = this.data.db);
    this.apiKeyByHash = prepareQuery<ApiKeyRow & { tenant_name: string }, [string]>(this.data, (p) =>
      db
        .selectFrom('api_keys as k')
        .innerJoin('tenants as t', 't.id', 'k.tenant_id')
        .selectAll('k')
        .select('t.name as tenant_name')
        .where('k.key_hash', '=', p(0))
        .where('t.active', '=', 1),
    );
    this.userById = prepareQuery<UserRow & { tenant_name: string }, [string]>(this.data, (p) =>
      db
        .selectFrom('users as u')
        .innerJoin('tenants as t', 't.id', 'u.tenant_id')
        .selectAll('u')
        .select('t.name as tenant_name')
        .where('u.id', '=', p(0))
        .where('t.active', '=', 1),
    );
  }

  private toUser(row: UserRow & { tenant_name: string }): User {
    const j = this.dialect.fromJson.bind(this.dialect);
    return {
      id: row.id,
      tenantId: row.tenant_id,
      tenant: row.tenant_name,
      loginName: row.login_name,
      passwordHash: row.password_hash,
      email: row.email,
      firstName: row.first_name,
      lastName: row.last_name,
      organisations: j<string[]>(row.organisations),
      inactiveOrganisations: j<string[]>(row.inactive_organisations),
      roles: j<string[]>(row.roles),
      rights: j<string[]>(row.rights),
      customData: j<Record<string, unknown>>(row.custom_data),
      active: Number(row.active) === 1,
    };
  }

  private toApiKey(row: ApiKeyRow & { tenant_name: string }): ApiKey {
    const j = this.dialect.fromJson.bind(this.dialect);
    return {
      id: row.id,
      tenantId: row.tenant_id,
      tenant: row.tenant_name,
      name: row.name,
      organisations: j<string[]>(row.organisations),
      roles: j<string[]>(row.roles),
      rights: j<string[]>(row.rights),
      expiresOn: row.expires_on === null ? null : Number(row.expires_on),
    };
  }

  async findTenant(
    name: string,
    options: { activeOnly?: boolean } = {},
  ): Promise<{ id: string; name: string } | undefined> {
    let q = this.db.selectFrom('tenants').select(['id', 'name']).where('name', '=', name);
    if (options.activeOnly) q = q.where('active', '=', 1);
    return q.executeTakeFirst();
  }

  async ensureTenant(name: string, db: Kysely<IdentityTables> = this.db): Promise<{ id: string; name: string }> {
    await db
      .insertInto('tenants')
      .values({ id: randomUUID(), name, created_on: Date.now() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    return db.selectFrom('tenants').select(['id', 'name']).where('name', '=', name).executeTakeFirstOrThrow();
  }

  private userByName?: (tenant: string, loginName: string) => Promise<any[]>;

  /**
   * A user by tenant and login name, read now (logins, and the user check on every engine request). The three
   * credential lookups see only active tenants: a deactivated tenant's users and keys authenticate nowhere.
   */
  async findUser(tenantName: string, loginName: string): Promise<User | undefined> {
    this.userByName ??= prepareQuery<any, [string, string]>(this.data, (p) =>
      this.db
        .selectFrom('users as u')
        .innerJoin('tenants as t', 't.id', 'u.tenant_id')
        .selectAll('u')
        .select('t.name as tenant_name')
        .where('t.name', '=', p(0))
        .where('u.login_name', '=', p(1))
        .where('t.active', '=', 1),
    );
    const [row] = await this.userByName(tenantName, loginName);
    return row ? this.toUser(row) : undefined;
  }

  async listUsers(tenantName?: string): Promise<User[]> {
    let q = this.db
      .selectFrom('users as u')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .selectAll('u')
      .select('t.name as tenant_name');
    if (tenantName) q = q.where('t.name', '=', tenantName);
    const rows = await q.orderBy('t.name').orderBy('u.login_name').execute();
    return rows.map((r) => this.toUser(r));
  }

  async countUsers(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Creates the user or changes the given fields; fields left undefined keep their value. */
  async upsertUser(tenantName: string, loginName: string, fields: UserFields): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const tenant = await this.ensureTenant(tenantName, trx);
      const now = Date.now();
      const existing = await trx
        .selectFrom('users')
        .select('id')
        .where('tenant_id', '=', tenant.id)
        .where('login_name', '=', loginName)
        .executeTakeFirst();
      const j = (v: unknown) => this.dialect.toJson(v);
      const changes: Partial<UserRow> = {};
      if (fields.passwordHash !== undefined) changes.password_hash = fields.passwordHash;
      if (fields.email !== undefined) changes.email = fields.email;
      if (fields.firstName !== undefined) changes.first_name = fields.firstName;
      if (fields.lastName !== undefined) changes.last_name = fields.lastName;
      if (fields.organisations !== undefined) changes.organisations = j(fields.organisations);
      if (fields.inactiveOrganisations !== undefined) changes.inactive_organisations = j(fields.inactiveOrganisations);
      if (fields.roles !== undefined) changes.roles = j(fields.roles);
      if (fields.rights !== undefined) changes.rights = j(fields.rights);
      if (fields.customData !== undefined) changes.custom_data = j(fields.customData);
      if (fields.active !== undefined) changes.active = fields.active ? 1 : 0;
      if (existing) {
        if (Object.keys(changes).length === 0) return;
        await trx
          .updateTable('users')
          .set({ ...changes, updated_on: now })
          .where('id', '=', existing.id)
          .execute();
        return;
      }
      await trx
        .insertInto('users')
        .values({
          id: randomUUID(),
          tenant_id: tenant.id,
          login_name: loginName,
          password_hash: null,
          email: '',
          first_name: '',
          last_name: '',
          organisations: j([]),
          inactive_organisations: j([]),
          roles: j([]),
          rights: j([]),
          custom_data: j({}),
          active: 1,
          ...changes,
          created_on: now,
          updated_on: now,
        })
        .execute();
    });
  }

  async upsertApiKey(tenantName: string, name: string, fields: ApiKeyFields): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const tenant = await this.ensureTenant(tenantName, trx);
      const now = Date.now();
      const j = (v: unknown) => this.dialect.toJson(v);
      const values = {
        key_hash: fields.keyHash,
        organisations: j(fields.organisations ?? []),
        roles: j(fields.roles ?? []),
        rights: j(fields.rights ?? []),
        expires_on: fields.expiresOn ?? null,
        updated_on: now,
      };
      const existing = await trx
        .selectFrom('api_keys')
        .select('id')
        .where('tenant_id', '=', tenant.id)
        .where('name', '=', name)
        .executeTakeFirst();
      if (existing) {
        await trx.updateTable('api_keys').set(values).where('id', '=', existing.id).execute();
      } else {
        await trx
          .insertInto('api_keys')
          .values({ id: randomUUID(), tenant_id: tenant.id, name, created_on: now, ...values })
          .execute();
      }
    });
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKey | undefined> {
    const [row] = await this.apiKeyByHash(keyHash);
    return row ? this.toApiKey(row) : undefined;
  }

  async listApiKeys(tenantName?: string): Promise<ApiKey[]> {
    let q = this.db
      .selectFrom('api_keys as k')
      .innerJoin('tenants as t', 't.id', 'k.tenant_id')
      .selectAll('k')
      .select('t.name as tenant_name');
    if (tenantName) q = q.where('t.name', '=', tenantName);
    return (await q.orderBy('t.name').orderBy('k.name').execute()).map((r) => this.toApiKey(r));
  }

  async findUserById(id: string): Promise<User | undefined> {
    const [row] = await this.userById(id);
    return row ? this.toUser(row) : undefined;
  }
}

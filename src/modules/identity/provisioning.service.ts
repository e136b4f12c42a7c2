import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { TenantConfig } from '../../config/config.schema.js';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { hashPassword, isPasswordHash, verifyPassword } from '../../platform/crypto/secrets.js';
import type { IdentityTables } from './identity.tables.js';
import { hashApiKey, normaliseKeyHash } from './identity.service.js';
import type { UsersRepository } from './users.repository.js';
import type { AdminRepository, AdminUserFields } from './admin/admin.repository.js';

type Fields = Record<string, unknown>;

/** What the file applied to one user or key at the last start that wrote it. */
interface Applied {
  fields: Fields;
  /** Users: the password hash the file's `password` or `passwordHash` produced (a hash, as in the users table). */
  passwordHash?: string;
}

const USER_FIELDS = [
  'email',
  'firstName',
  'lastName',
  'organisations',
  'inactiveOrganisations',
  'roles',
  'rights',
  'customData',
  'active',
] as const;
const KEY_FIELDS = ['keyHash', 'organisations', 'roles', 'rights', 'expiresOn'] as const;

/** Equal as JSON values, whatever the order of object keys (PostgreSQL's jsonb does not keep it). */
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** The fields an entry of the file states (present in it), in a fixed order. */
function stated(entry: Record<string, unknown>, names: readonly string[]): Fields {
  const out: Fields = {};
  for (const n of names) if (entry[n] !== undefined) out[n] = entry[n];
  return out;
}

/**
 * Applies the config file's tenants, users and keys at every start, so that the file and administration over HTTP
 * (or the CLI) agree: what is missing is created; of a user or key that exists, a field is written only when the file
 * states it and its value differs from the one the file applied at the last start (kept in `provisioned`). So a
 * change made over HTTP lasts until the file itself changes that field, and a user or key deleted over HTTP stays
 * deleted until its entry in the file changes. Nothing is ever deleted by the file.
 */
export class ProvisioningService {
  private readonly db: Kysely<IdentityTables>;

  constructor(
    private readonly users: UsersRepository,
    private readonly admin: AdminRepository,
    private readonly dialect: Dialect,
    db: Kysely<IdentityTables>,
  ) {
    this.db = db;
  }

  async provision(tenants: readonly TenantConfig[]): Promise<void> {
    for (const t of tenants) {
      const tenant = await this.users.ensureTenant(t.name);
      for (const u of t.users ?? []) await this.provisionUser(tenant.id, u);
      for (const k of t.apiKeys ?? []) {
        if (!k.key && !k.keyHash) throw new Error(`api key ${k.name} of tenant ${t.name} needs key or keyHash`);
        await this.provisionKey(tenant.id, k);
      }
    }
  }

  private async provisionUser(tenantId: string, u: NonNullable<TenantConfig['users']>[number]): Promise<void> {
    if (u.passwordHash !== undefined && !isPasswordHash(u.passwordHash))
      throw new Error(`passwordHash of ${u.loginName} is not an scrypt hash`);
    const fields = stated(u, USER_FIELDS);
    const record = await this.record(tenantId, 'user', u.loginName);
    const existing = await this.db
      .selectFrom('users')
      .select(['id', 'password_hash'])
      .where('tenant_id', '=', tenantId)
      .where('login_name', '=', u.loginName)
      .executeTakeFirst();
    // The password the file states, compared with the hash it applied last (or, before any record, the stored one).
    const reference = record?.applied.passwordHash ?? existing?.password_hash ?? undefined;
    let passwordHash: string | undefined;
    let passwordChanged = false;
    if (u.passwordHash !== undefined) {
      passwordHash = u.passwordHash;
      passwordChanged = u.passwordHash !== reference;
    } else if (u.password !== undefined) {
      passwordChanged = !(reference && (await verifyPassword(u.password, reference)));
      passwordHash = passwordChanged ? await hashPassword(u.password) : reference;
    }
    const applied: Applied = { fields, ...(passwordHash ? { passwordHash } : {}) };
    const write = (trx: Kysely<IdentityTables>) => this.saveRecord(tenantId, 'user', u.loginName, applied, trx);

    if (!existing) {
      if (record?.deleted && !passwordChanged && same(fields, record.applied.fields)) return;
      await this.admin.transaction(async (trx) => {
        await this.admin.insertUser(tenantId, u.loginName, { ...(fields as AdminUserFields), passwordHash }, trx);
        await write(trx);
      });
      return;
    }
    const changes: Fields = {};
    for (const [name, value] of Object.entries(fields))
      if (!record || !(name in record.applied.fields) || !same(record.applied.fields[name], value))
        changes[name] = value;
    if (passwordChanged) changes.passwordHash = passwordHash;
    if (Object.keys(changes).length === 0 && record && same(applied, record.applied)) return;
    await this.admin.transaction(async (trx) => {
      if (Object.keys(changes).length) await this.admin.updateUser(tenantId, existing.id, changes, trx);
      await write(trx);
    });
  }

  private async provisionKey(tenantId: string, k: NonNullable<TenantConfig['apiKeys']>[number]): Promise<void> {
    const entry = {
      keyHash: k.keyHash ? normaliseKeyHash(k.keyHash) : hashApiKey(k.key!),
      organisations: k.organisations,
      roles: k.roles,
      rights: k.rights,
      expiresOn: k.expiresOn === undefined ? undefined : k.expiresOn === null ? null : Date.parse(k.expiresOn),
    };
    const fields = stated(entry, KEY_FIELDS);
    const record = await this.record(tenantId, 'apiKey', k.name);
    const existing = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('name', '=', k.name)
      .executeTakeFirst();
    const applied: Applied = { fields };
    const write = (trx: Kysely<IdentityTables>) => this.saveRecord(tenantId, 'apiKey', k.name, applied, trx);
    const j = (v: unknown) => this.dialect.toJson(v);
    if (!existing) {
      if (record?.deleted && same(fields, record.applied.fields)) return;
      const now = Date.now();
      await this.admin.transaction(async (trx) => {
        await trx
          .insertInto('api_keys')
          .values({
            id: randomUUID(),
            tenant_id: tenantId,
            name: k.name,
            key_hash: entry.keyHash,
            organisations: j(entry.organisations ?? []),
            roles: j(entry.roles ?? []),
            rights: j(entry.rights ?? []),
            expires_on: entry.expiresOn ?? null,
            created_on: now,
            updated_on: now,
          })
          .execute();
        await write(trx);
      });
      return;
    }
    const changed = (name: string) =>
      name in fields &&
      (!record || !(name in record.applied.fields) || !same(record.applied.fields[name], fields[name]));
    const set: Record<string, unknown> = {};
    if (changed('keyHash')) set.key_hash = entry.keyHash;
    for (const [name, column] of [
      ['organisations', 'organisations'],
      ['roles', 'roles'],
      ['rights', 'rights'],
    ] as const)
      if (changed(name)) set[column] = j(fields[name]);
    if (changed('expiresOn')) set.expires_on = entry.expiresOn ?? null;
    if (Object.keys(set).length === 0 && record && same(applied, record.applied)) return;
    await this.admin.transaction(async (trx) => {
      if (Object.keys(set).length)
        await trx
          .updateTable('api_keys')
          .set({ ...set, updated_on: Date.now() })
          .where('id', '=', existing.id)
          .execute();
      await write(trx);
    });
  }

  private async record(tenantId: string, kind: 'user' | 'apiKey', name: string) {
    const row = await this.db
      .selectFrom('provisioned')
      .select(['applied', 'deleted'])
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', kind)
      .where('name', '=', name)
      .executeTakeFirst();
    return row
      ? { applied: this.dialect.fromJson<Applied>(row.applied), deleted: Number(row.deleted) === 1 }
      : undefined;
  }

  private async saveRecord(
    tenantId: string,
    kind: 'user' | 'apiKey',
    name: string,
    applied: Applied,
    trx: Kysely<IdentityTables>,
  ): Promise<void> {
    const values = { applied: this.dialect.toJson(applied), deleted: 0, updated_on: Date.now() };
    await trx
      .insertInto('provisioned')
      .values({ tenant_id: tenantId, kind, name, ...values })
      .onConflict((oc) => oc.columns(['tenant_id', 'kind', 'name']).doUpdateSet(values))
      .execute();
  }
}

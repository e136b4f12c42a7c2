import type { ModuleMigration } from '../../platform/db/migrations.js';

export const identityMigrations: ModuleMigration[] = [
  {
    name: '2026-11-22-identity-001-initial',
    async up(db, d) {
      await db.schema
        .createTable('tenants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('login_name', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('first_name', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('last_name', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('organisations', d.jsonColumnType, (c) => c.notNull())
        .addColumn('inactive_organisations', d.jsonColumnType, (c) => c.notNull())
        .addColumn('roles', d.jsonColumnType, (c) => c.notNull())
        .addColumn('rights', d.jsonColumnType, (c) => c.notNull())
        .addColumn('custom_data', d.jsonColumnType, (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('updated_on', d.bigintColumnType, (c) => c.notNull())
        .addUniqueConstraint('users_tenant_login_uq', ['tenant_id', 'login_name'])
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('organisations', d.jsonColumnType, (c) => c.notNull())
        .addColumn('roles', d.jsonColumnType, (c) => c.notNull())
        .addColumn('rights', d.jsonColumnType, (c) => c.notNull())
        .addColumn('expires_on', d.bigintColumnType)
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('updated_on', d.bigintColumnType, (c) => c.notNull())
        .addUniqueConstraint('api_keys_tenant_name_uq', ['tenant_id', 'name'])
        .execute();
      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('remote_address', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('user_agent', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('expires_on', d.bigintColumnType, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
      await db.schema.createIndex('sessions_tenant_idx').on('sessions').columns(['tenant_id', 'expires_on']).execute();
      await db.schema
        .createTable('login_failures')
        .addColumn('throttle_key', 'text', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('window_start', d.bigintColumnType, (c) => c.notNull())
        .execute();
    },
  },
  {
    name: '2026-11-22-identity-002-signing-keys-audit',
    async up(db, d) {
      await db.schema
        .createTable('signing_keys')
        .addColumn('kid', 'text', (c) => c.primaryKey())
        .addColumn('alg', 'text', (c) => c.notNull())
        .addColumn('public_jwk', d.jsonColumnType, (c) => c.notNull())
        .addColumn('private_jwk', d.jsonColumnType, (c) => c.notNull())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        // Signs until sign_until; stays in the JWKS (verifies) until verify_until.
        .addColumn('sign_until', d.bigintColumnType, (c) => c.notNull())
        .addColumn('verify_until', d.bigintColumnType, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text')
        .addColumn('at', d.bigintColumnType, (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('remote_address', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .addColumn('detail', d.jsonColumnType, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_log_tenant_at_idx').on('audit_log').columns(['tenant_id', 'at']).execute();
    },
  },
  {
    // Retention deletes by age across tenants (identity.auditRetentionDays).
    name: '2026-11-22-identity-003-audit-at-index',
    async up(db) {
      await db.schema.createIndex('audit_log_at_idx').on('audit_log').column('at').execute();
    },
  },
  {
    // The failed-login counters moved to the credential throttle of the platform (platform/auth/throttle), which the
    // engine's checks share; their old counts are dropped with the table (a throttle window is minutes long).
    name: '2026-11-30-identity-004-drop-login-failures',
    async up(db) {
      await db.schema.dropTable('login_failures').ifExists().execute();
    },
  },
  {
    // Identity administration over HTTP (issue 44): tenants can be deactivated, and what the config file applied to
    // each user and key is kept, so a restart re-applies only what changed in the file (ProvisioningService).
    name: '2026-12-01-identity-005-admin',
    async up(db, d) {
      await db.schema
        .alterTable('tenants')
        .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema
        .createTable('provisioned')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('applied', d.jsonColumnType, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_on', d.bigintColumnType, (c) => c.notNull())
        .addPrimaryKeyConstraint('provisioned_pk', ['tenant_id', 'kind', 'name'])
        .execute();
    },
  },
];

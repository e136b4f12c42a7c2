import type { ModuleMigration } from '../../platform/db/migrations.js';

export const formsMigrations: ModuleMigration[] = [
  {
    name: '2026-11-22-forms-001-initial',
    async up(db, d) {
      // No foreign key to tenants: migrations run in name order and 'forms' sorts before 'identity'.
      // One head row per existing form: the lock every write of the form takes first, the counter of the
      // highest version ever issued (versions are never reused) and the current latest version.
      await db.schema
        .createTable('form_heads')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('form_id', 'text', (c) => c.notNull())
        .addColumn('issued_version', 'integer', (c) => c.notNull())
        .addColumn('latest_version', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('form_heads_pk', ['tenant_id', 'form_id'])
        .execute();
      // Every persisted version. The primary key (tenant_id, form_id, version) is the index the read path
      // uses: the latest version is one backward seek on it. `config` is the JSON text as returned (text
      // on both engines: jsonb would reorder the keys of an open-ended form definition).
      await db.schema
        .createTable('form_versions')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('form_id', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('form_versions_pk', ['tenant_id', 'form_id', 'version'])
        .addForeignKeyConstraint(
          'form_versions_head_fk',
          ['tenant_id', 'form_id'],
          'form_heads',
          ['tenant_id', 'form_id'],
          (fk) => fk.onDelete('cascade'),
        )
        .execute();
    },
  },
  {
    // Change counts for conditional GETs (form-tags.ts), kept by triggers in every write's transaction
    // (Dialect.createChangeCounter): per form from its versions (a read of the form, its config or its history), and
    // per tenant from the heads (the list: every add, update and delete of a form changes its head row).
    name: '2026-12-02-forms-002-changes',
    async up(db, d) {
      await d.createChangeCounter(db, {
        table: 'form_versions',
        counterTable: 'form_changes',
        keys: ['tenant_id', 'form_id'],
      });
      await d.createChangeCounter(db, { table: 'form_heads', counterTable: 'form_list_changes', keys: ['tenant_id'] });
    },
  },
];

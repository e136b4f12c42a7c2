import type { ModuleMigration } from '../../db/migrations.js';

export const throttleMigrations: ModuleMigration[] = [
  {
    name: '2026-11-30-throttle-001-credential-throttle',
    async up(db, d) {
      await db.schema
        .createTable('credential_throttle')
        .addColumn('throttle_key', 'text', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('window_start', d.bigintColumnType, (c) => c.notNull())
        .addColumn('expires_at', d.bigintColumnType, (c) => c.notNull())
        .addColumn('blocked_until', d.bigintColumnType, (c) => c.notNull())
        .addColumn('refused', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // The purge deletes by expiry.
      await db.schema
        .createIndex('credential_throttle_expires_idx')
        .on('credential_throttle')
        .column('expires_at')
        .execute();
    },
  },
];

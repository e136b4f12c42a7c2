import type { ModuleMigration } from '../../platform/db/migrations.js';

export const storageMigrations: ModuleMigration[] = [
  {
    name: '2026-11-22-storage-001-initial',
    async up(db, d) {
      await db.schema
        .createTable('storage_stores')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('index_name', 'text', (c) => c.notNull())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('storage_stores_pk', ['tenant_id', 'store_id'])
        .execute();

      // `seq` orders items by creation and keys the access rows (SQLite: the rowid itself).
      await d
        .addSerialPrimaryKey(db.schema.createTable('storage_items'), 'seq')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('item_id', 'text', (c) => c.notNull())
        .addColumn('doc', d.jsonColumnType, (c) => c.notNull())
        .addColumn('created_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('updated_on', d.bigintColumnType, (c) => c.notNull())
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .addForeignKeyConstraint('storage_items_store_fk', ['tenant_id', 'store_id'], 'storage_stores', ['tenant_id', 'store_id'], (c) =>
          c.onDelete('cascade'),
        )
        .addUniqueConstraint('storage_items_key_uq', ['tenant_id', 'store_id', 'item_id'])
        .execute();

      // The primary key is the lookup "which items may these grantees read in this store"; on SQLite the
      // table is that index itself (WITHOUT ROWID), which halves the b-trees an item write touches.
      const access = db.schema
        .createTable('storage_item_access')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('store_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('grantee', 'text', (c) => c.notNull())
        .addColumn('item_seq', d.bigintColumnType, (c) => c.notNull().references('storage_items.seq').onDelete('cascade'))
        .addPrimaryKeyConstraint('storage_item_access_pk', ['tenant_id', 'store_id', 'mode', 'grantee', 'item_seq']);
      await d.keyOnlyTable(access).execute();
      // Replacing an item's access rows and the cascade on delete look rows up by item.
      await db.schema.createIndex('storage_item_access_item_idx').on('storage_item_access').column('item_seq').execute();
    },
  },
];

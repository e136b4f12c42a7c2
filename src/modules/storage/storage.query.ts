// How list parameters reach SQL: the fields of an item as read, mapped for the platform's query compiler. Values
// inside the document are read through the value index (platform/query/value-index.ts, table storage_item_values).
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { compileListQuerySets, type FieldTarget, type QueryContext, type ValueIndexSource } from '../../platform/query/index.js';
import { DOCUMENT_FIELDS, INDEXED_FIELDS } from './item-document.js';
import type { ListQueryCompiler } from './storage.service.js';
import type { StoreScope } from './store-item-lists.repository.js';

/** Fields kept in columns of storage_items. */
const COLUMN_FIELDS: Record<string, FieldTarget> = {
  id: { kind: 'column', column: 'i.item_id', type: 'text' },
  createdBy: { kind: 'column', column: 'i.created_by', type: 'text' },
  updatedBy: { kind: 'column', column: 'i.updated_by', type: 'text' },
  createdOn: { kind: 'column', column: 'i.created_on', type: 'datetime' },
  updatedOn: { kind: 'column', column: 'i.updated_on', type: 'datetime' },
};


/**
 * The fields of the items of one store. `indexed: false` reads every value from the document (the answer the value
 * index must give too; the differential tests compare both).
 */
export function storeItemQueryContext(dialect: Dialect, scope: StoreScope, indexed = true): QueryContext {
  const source = storeIndexSource(scope);
  return {
    dialect,
    resolve(property) {
      if (Object.prototype.hasOwnProperty.call(COLUMN_FIELDS, property)) return COLUMN_FIELDS[property];
      const path = property.split('.');
      if (!DOCUMENT_FIELDS.has(path[0]) || path.some((p) => p === '')) return null;
      return indexed && INDEXED_FIELDS.has(path[0]) ? { kind: 'indexed', path, source } : { kind: 'json', column: 'i.doc', path };
    },
    fullText: { kind: 'json', column: 'i.doc', path: [] },
  };
}

/**
 * "The grantees may read the item `key`": one probe of the access index per grantee (storage_item_access; the
 * repository keeps it in the item's write transaction).
 */
export function mayRead(scope: StoreScope, key: RawBuilder<unknown>): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (SELECT 1 FROM storage_item_access a WHERE a.tenant_id = ${scope.tenantId} AND a.store_id = ${scope.storeId}
    AND a.mode = 'r' AND a.grantee IN (${sql.join(scope.grantees)}) AND a.item_seq = ${key})`;
}

/** The value index of one store's items (storage_item_values), for the item aliased `i`. */
function storeIndexSource(scope: StoreScope): ValueIndexSource {
  return {
    readers: {
      sets: sql`SELECT g.set_id FROM storage_reader_set_grantees g WHERE g.tenant_id = ${scope.tenantId} AND g.store_id = ${scope.storeId}
        AND g.grantee IN (${sql.join(scope.grantees)})`,
      mayRead: (key) => mayRead(scope, key),
    },
    itemsTable: 'storage_items',
    valuesTable: 'storage_item_values',
    wordsTable: 'storage_item_words',
    keysTable: 'storage_value_keys',
    scope: [
      ['tenant_id', scope.tenantId],
      ['store_id', scope.storeId],
    ],
    alias: 'i',
  };
}

/**
 * query, filter, sort and time zone of a list read of one store: the matching items the caller may read as a set of
 * keys, each once (the universe of a NOT is the CTE `q__r` of the readable ones), and the sort over the item aliased `i`.
 */
export function createListQueryCompiler(dialect: Dialect): ListQueryCompiler {
  return (input, scope) => compileListQuerySets(input, storeItemQueryContext(dialect, scope), storeIndexSource(scope), READABLE);
}

/** The CTE of the keys the caller may read, which the repository defines. */
export const READABLE = 'q__r';

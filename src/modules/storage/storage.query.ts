// How list parameters reach SQL: the fields of an item as read, mapped for the platform's query compiler, and the
// plan a list is read by (store-list-plan.ts). Values inside the document are read through the value index
// (platform/query/value-index.ts, table storage_item_values). Pure: the reads (StoreItemLists) run the plan.
import { sql } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import {
  compileListQuerySets,
  plainCheck,
  type FieldTarget,
  type ListQueryInput,
  type PlainAssumption,
  type QueryContext,
  type ValueIndexSource,
} from '../../platform/query/index.js';
import { DOCUMENT_FIELDS, INDEXED_FIELDS } from './item-document.js';
import { readerSets, type StoreScope } from './store-scope.js';
import { granteesOf, mayAccess, readableKeys } from './store-access.js';
import { READABLE, WALKED_KEYS, type ListPlan } from './store-list-plan.js';
import { grantTokens } from './item-index-keys.js';

/** Grantees of a caller whose words index tokens a bare term names at most (beyond, each match is probed). */
const GRANT_TOKENS_MAX = 1000;

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
export function storeItemQueryContext(
  dialect: Dialect,
  scope: StoreScope,
  indexed = true,
  source = storeIndexSource(scope),
): QueryContext {
  return {
    dialect,
    resolve(property) {
      if (Object.hasOwn(COLUMN_FIELDS, property)) return COLUMN_FIELDS[property];
      const path = property.split('.');
      if (!DOCUMENT_FIELDS.has(path[0]) || path.some((p) => p === '')) return null;
      return indexed && INDEXED_FIELDS.has(path[0])
        ? { kind: 'indexed', path, source }
        : { kind: 'json', column: 'i.doc', text: true, path };
    },
    fullText: { kind: 'json', column: 'i.doc', text: true, path: [] },
  };
}

/**
 * The value index of one store's items (storage_item_values), for the item aliased `i`; with `plain`, compiled for
 * plain values (ValueIndexSource.plain).
 */
function storeIndexSource(scope: StoreScope, plain?: PlainAssumption): ValueIndexSource {
  const grantees = granteesOf(scope);
  return {
    plain,
    readers: {
      sets: readerSets(scope),
      mayRead: (key) => mayAccess(grantees, 'r', key),
      few: scope.fewReadable ? { keys: readableKeys(grantees) } : undefined,
      // Hashed only when a bare term asks for them (most lists have none).
      get tokens() {
        return scope.grantees.length <= GRANT_TOKENS_MAX ? grantTokens(scope, scope.grantees) : undefined;
      },
    },
    itemsTable: 'storage_items',
    documentText: true,
    valuesTable: 'storage_item_values',
    wordsTable: 'storage_item_words',
    keysTable: 'storage_value_keys',
    keyForms: true,
    counts: 'storage_value_counts',
    termCounts: 'storage_term_counts',
    scope: [
      ['tenant_id', scope.tenantId],
      ['store_id', scope.storeId],
    ],
    alias: 'i',
  };
}

/**
 * The plan of a list read of one store (query, filter, sort and time zone): the matching items the caller may read as a
 * set of keys, each once (the universe of a NOT is READABLE), and the sort over the item aliased `i`; and where a walk
 * that stops after the page may read it, the query and filter as a condition on one item (its indexed values and words
 * probed by its key): of the sort's index rows, where the sort is by one indexed value, or of the store's items in
 * creation order, where there is no sort. A bare term's walk pays off once its total is kept (asked again: no count of
 * its matches), and as the store grows. `plain`: compiled for plain values (ValueIndexSource.plain), which the plan's
 * statements check. Throws AppError for invalid parameters (platform/query).
 */
export function compileStoreList(dialect: Dialect, scope: StoreScope, input: ListQueryInput, plain: boolean): ListPlan {
  // The walk's condition may read its statement's bounds of the walked keys (a bare term: the matches between them).
  // One source for the context and the compile: the kept totals are the source's own paths' (target.source).
  const walkedKeys = {
    from: sql`(SELECT lo FROM ${sql.table(WALKED_KEYS)})`,
    to: sql`(SELECT hi FROM ${sql.table(WALKED_KEYS)})`,
  };
  const source = {
    ...storeIndexSource(scope, plain ? { paths: new Set<string>(), allIndexed: false } : undefined),
    walkedKeys,
  };
  const ctx = storeItemQueryContext(dialect, scope, true, source);
  const { sorts, where, ...matches } = compileListQuerySets(input, ctx, source, READABLE, 'byKey');
  if (!matches.set && matches.orderBy.length === 0) return { kind: 'readable' };
  const indexed = { matches, plain: plainCheck(source) };
  const target = sorts.length === 1 ? ctx.resolve(sorts[0].property) : null;
  if (target?.kind === 'indexed') {
    return { kind: 'sort-walk', ...indexed, path: target.path.join('.'), direction: sorts[0].direction, where };
  }
  if (sorts.length === 0 && matches.set && where) return { kind: 'creation-walk', ...indexed, where };
  return { kind: 'matches', ...indexed };
}

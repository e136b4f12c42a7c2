// How list parameters reach SQL: the fields of an item as read, mapped for the platform's query compiler. Values
// inside the document are read through the value index (platform/query/value-index.ts, table storage_item_values).
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { compileListQuerySets, plainCheck, type FieldTarget, type ListQueryInput, type PlainAssumption, type QueryContext, type ValueIndexSource } from '../../platform/query/index.js';
import { DOCUMENT_FIELDS, INDEXED_FIELDS } from './item-document.js';
import { ExpiringMap } from '../../platform/cache/expiring-map.js';
import type { ListQueryCompiler } from './storage.service.js';
import { mayRead, readableKeys, readerSets, type CompiledItemQuery, type StoreScope } from './store-scope.js';
import { grantTokens } from './item-value-index.js';

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
export function storeItemQueryContext(dialect: Dialect, scope: StoreScope, indexed = true, source = storeIndexSource(scope)): QueryContext {
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
 * The value index of one store's items (storage_item_values), for the item aliased `i`; with `plain`, compiled for
 * plain values (ValueIndexSource.plain).
 */
function storeIndexSource(scope: StoreScope, plain?: PlainAssumption): ValueIndexSource {
  return {
    plain,
    readers: {
      sets: readerSets(scope),
      mayRead: (key) => mayRead(scope, key),
      few: scope.fewReadable ? { keys: readableKeys(scope) } : undefined,
      // Hashed only when a bare term asks for them (most lists have none).
      get tokens() {
        return scope.grantees.length <= GRANT_TOKENS_MAX ? grantTokens(scope, scope.grantees) : undefined;
      },
    },
    itemsTable: 'storage_items',
    valuesTable: 'storage_item_values',
    wordsTable: 'storage_item_words',
    keysTable: 'storage_value_keys',
    keyForms: true,
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
  return remembering((input, scope, plain) => {
    const source = storeIndexSource(scope, plain ? { paths: new Set(), allIndexed: false } : undefined);
    const ctx = storeItemQueryContext(dialect, scope, true, source);
    // The query and filter also as a condition on one item (its indexed values and words probed by its key), for a
    // walk that stops after the page (StoreItemLists.walk): of the sort's index rows, where the sort is by one indexed
    // value, or of the store's items in creation order, where there is no sort. A bare term's walk pays off once its
    // total is kept (asked again: no count of its matches), and as the store grows.
    const { sorts, where, ...compiled } = compileListQuerySets(input, ctx, source, READABLE, 'byKey');
    const target = sorts.length === 1 ? ctx.resolve(sorts[0].property) : null;
    const walk =
      target?.kind === 'indexed'
        ? { path: target.path.join('.'), direction: sorts[0].direction, where }
        : sorts.length === 0 && compiled.set
          ? { direction: 'ASC' as const, where }
          : undefined;
    return { ...compiled, walk, plain: plainCheck(source) };
  });
}

/** Compiled lists kept per compiler, and the longest key kept (a longer one is compiled each time). */
const REMEMBERED_MAX = 1000;
const REMEMBERED_KEY_MAX = 4096;
/**
 * How long a list whose store did not hold plain values is compiled the general way before plain values are assumed
 * again (the indexer may have caught up; a path's forms are only ever added to).
 */
const GENERAL_KEPT_MS = 60_000;

/**
 * The compiler, remembering its last answers: a compiled list depends only on its parameters and scope (no clock, no
 * data: the index's state is read by the statements themselves), and compiling one took 0.2 ms of a 1.6 ms list (a
 * page polled by many clients, or paged through, asks for the same compile again). The SQL it builds is immutable
 * (Kysely's raw builders are frozen), so one answer serves every request that asks for it.
 */
function remembering(compile: (input: ListQueryInput, scope: StoreScope, plain: boolean) => CompiledItemQuery): ListQueryCompiler {
  const remembered = new ExpiringMap<string, CompiledItemQuery>(REMEMBERED_MAX);
  return (input, scope) => {
    const key = JSON.stringify([
      scope.tenantId,
      scope.storeId,
      scope.grantees,
      scope.fewReadable === true,
      input.query ?? null,
      input.filter ?? null,
      input.sort ?? null,
      input.timezoneName ?? null,
      input.timezoneOffset ?? null,
    ]);
    const kept = key.length <= REMEMBERED_KEY_MAX;
    const known = kept ? remembered.get(key) : undefined;
    if (known) return known;
    const compiled = compile(input, scope, true);
    if (compiled.plain) {
      // Where the store's values are not plain, the general compile answers, and is kept for a while in its place.
      compiled.general = () => {
        const general = compile(input, scope, false);
        if (kept) remembered.set(key, general, Date.now() + GENERAL_KEPT_MS);
        return general;
      };
    }
    if (kept) remembered.set(key, compiled, Number.POSITIVE_INFINITY);
    return compiled;
  };
}

/** The CTE of the keys the caller may read, which the repository defines. */
export const READABLE = 'q__r';

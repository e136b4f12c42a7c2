// How list parameters reach SQL: the fields of an item as read, mapped for the platform's query compiler.
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { compileListQuery, type FieldTarget, type QueryContext } from '../../platform/query/index.js';
import type { ListQueryCompiler } from './storage.service.js';

/** Fields kept inside the `doc` JSON column (with everything beneath them). */
const DOC_FIELDS = new Set(['moduleId', 'moduleInstanceId', 'name', 'value', 'favorite', 'readRestriction', 'writeRestriction', 'customFields']);

/** Fields kept in columns of storage_items. */
const COLUMN_FIELDS: Record<string, FieldTarget> = {
  id: { kind: 'column', column: 'i.item_id', type: 'text' },
  createdBy: { kind: 'column', column: 'i.created_by', type: 'text' },
  updatedBy: { kind: 'column', column: 'i.updated_by', type: 'text' },
  createdOn: { kind: 'column', column: 'i.created_on', type: 'datetime' },
  updatedOn: { kind: 'column', column: 'i.updated_on', type: 'datetime' },
};

export function storeItemQueryContext(dialect: Dialect): QueryContext {
  return {
    dialect,
    resolve(property) {
      if (Object.prototype.hasOwnProperty.call(COLUMN_FIELDS, property)) return COLUMN_FIELDS[property];
      const path = property.split('.');
      if (!DOC_FIELDS.has(path[0]) || path.some((p) => p === '')) return null;
      return { kind: 'json', column: 'i.doc', path };
    },
    fullText: { kind: 'json', column: 'i.doc', path: [] },
  };
}

/** query, filter, sort and time zone of a list read, compiled against the item aliased `i`. */
export function createListQueryCompiler(dialect: Dialect): ListQueryCompiler {
  const ctx = storeItemQueryContext(dialect);
  return (input) => compileListQuery(input, ctx);
}

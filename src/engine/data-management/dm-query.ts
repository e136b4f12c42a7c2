// Filters and sorters of the data management API (decisions section 9): the storage API's query language, compiled by
// the platform's query compiler (platform/query) over the properties a context names; one language, one set of tests.
import { Type } from '@sinclair/typebox';
import type { RawBuilder, SqlBool } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { isAppError } from '../../platform/errors/app-error.js';
import {
  compileListQuery,
  compileListQuerySets,
  type FieldResolver,
  type FieldTarget,
  type QueryContext,
  type SortJoin,
  type ValueIndexSource,
} from '../../platform/query/index.js';
import { DM_ERRORS } from './dm.errors.js';

export const FiltersSchema = Type.Array(
  Type.Object(
    {
      property: Type.String({ minLength: 1, maxLength: 1000 }),
      operator: Type.String({ minLength: 1, maxLength: 16 }),
      value: Type.Optional(Type.Unknown()),
      invert: Type.Optional(Type.Boolean()),
      source: Type.Optional(Type.String({ maxLength: 64 })),
    },
    { additionalProperties: false },
  ),
  { maxItems: 100 },
);

export const SortersSchema = Type.Array(
  Type.Object(
    {
      property: Type.String({ minLength: 1, maxLength: 1000 }),
      direction: Type.Optional(Type.Union([Type.Literal('ASC'), Type.Literal('DESC')])),
    },
    { additionalProperties: false },
  ),
  { maxItems: 10 },
);

export interface DmQuery {
  where?: RawBuilder<SqlBool>;
  orderBy: RawBuilder<unknown>[];
  joins: SortJoin[];
}

export type Filters = Array<{ property: string; operator: string; value?: unknown; invert?: boolean; source?: string }>;
export type Sorters = Array<{ property: string; direction?: 'ASC' | 'DESC' }>;

/** Every property named must be one `resolve` knows (`known` lists them): 400 naming it otherwise. */
function checkProperties(
  resolve: FieldResolver,
  known: string,
  method: string,
  filters: Filters,
  sorters: Sorters,
): void {
  for (const { property } of [...filters, ...sorters]) {
    if (!resolve(property))
      throw DM_ERRORS.invalidCall(`${method}: cannot filter or sort by ${property.slice(0, 100)} (${known})`, {
        property: property.slice(0, 100),
      });
  }
}

/** Any other invalid condition (operator, value, source) is a 400 of the data management API too. */
function asDmError<T>(method: string, compile: () => T): T {
  try {
    return compile();
  } catch (err) {
    if (isAppError(err) && err.statusCode < 500)
      throw DM_ERRORS.invalidCall(`${method}: ${err.message}`, err.body.properties);
    throw err;
  }
}

const sortInput = (sorters: Sorters) =>
  sorters.map((s) => ({ property: s.property, direction: s.direction ?? ('ASC' as const) }));

/**
 * The filters and sorters as a WHERE condition and ORDER BY over rows (templates, aliased `t`; or one asset at a time,
 * with `indexMembership` 'byKey').
 */
export function compileDmQuery(
  dialect: Dialect,
  resolve: FieldResolver,
  known: string,
  method: string,
  filters: Filters = [],
  sorters: Sorters = [],
  indexMembership?: QueryContext['indexMembership'],
): DmQuery {
  checkProperties(resolve, known, method, filters, sorters);
  const fullText: Exclude<FieldTarget, { kind: 'indexed' }> = { kind: 'json', column: 't.doc', path: [] };
  return asDmError(method, () =>
    compileListQuery({ filter: filters, sort: sortInput(sorters) }, { dialect, resolve, fullText, indexMembership }),
  );
}

/**
 * The filters and sorters over documents a value index covers: a set of keys within `universe`, and the sort; with
 * `genericValues`, the set's plan does not follow its scope, paths and bounds (QueryContext.genericValues). With
 * `itemCondition`, the filters also as a condition on one asset (`where`, over the source's alias), from the same
 * parse: compiling the filters a second time on their own cost a walked query about a tenth of its SQL building.
 */
export function compileDmQuerySets(
  dialect: Dialect,
  resolve: FieldResolver,
  known: string,
  method: string,
  source: ValueIndexSource,
  universe: string,
  filters: Filters = [],
  sorters: Sorters = [],
  genericValues = false,
  itemCondition?: QueryContext['indexMembership'],
) {
  checkProperties(resolve, known, method, filters, sorters);
  const fullText: Exclude<FieldTarget, { kind: 'indexed' }> = { kind: 'json', column: `${source.alias}.doc`, path: [] };
  return asDmError(method, () =>
    compileListQuerySets(
      { filter: filters, sort: sortInput(sorters) },
      { dialect, resolve, fullText, genericValues },
      source,
      universe,
      itemCondition,
    ),
  );
}

// Filters and sorters of the data management API (decisions section 9): the storage API's query language, compiled by
// the platform's query compiler (platform/query) over the properties a context names; one language, one set of tests.
import { Type } from '@sinclair/typebox';
import type { RawBuilder, SqlBool } from 'kysely';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { isAppError } from '../../platform/errors/app-error.js';
import { compileListQuery, type FieldResolver, type FieldTarget, type SortJoin } from '../../platform/query/index.js';
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
  Type.Object({ property: Type.String({ minLength: 1, maxLength: 1000 }), direction: Type.Optional(Type.Union([Type.Literal('ASC'), Type.Literal('DESC')])) }, { additionalProperties: false }),
  { maxItems: 10 },
);

export interface DmQuery {
  where?: RawBuilder<SqlBool>;
  orderBy: RawBuilder<unknown>[];
  joins: SortJoin[];
}

type Filters = Array<{ property: string; operator: string; value?: unknown; invert?: boolean; source?: string }>;
type Sorters = Array<{ property: string; direction?: 'ASC' | 'DESC' }>;

/**
 * The filters and sorters as SQL over the properties `resolve` knows. A property it does not know is a 400 naming it
 * (`known` lists what may be used); any other invalid condition is a 400 of the data management API too.
 */
export function compileDmQuery(
  dialect: Dialect,
  resolve: FieldResolver,
  known: string,
  method: string,
  filters: Filters = [],
  sorters: Sorters = [],
  fullText: Exclude<FieldTarget, { kind: 'indexed' }> = { kind: 'json', column: 't.doc', path: [] },
): DmQuery {
  for (const { property } of [...filters, ...sorters]) {
    if (!resolve(property)) throw DM_ERRORS.invalidCall(`${method}: cannot filter or sort by ${property.slice(0, 100)} (${known})`, { property: property.slice(0, 100) });
  }
  try {
    return compileListQuery(
      { filter: filters, sort: sorters.map((s) => ({ property: s.property, direction: s.direction ?? 'ASC' })) },
      { dialect, resolve, fullText },
    );
  } catch (err) {
    if (isAppError(err) && err.statusCode < 500) throw DM_ERRORS.invalidCall(`${method}: ${err.message}`, err.body.properties);
    throw err;
  }
}

// Reading the change counts that Dialect.createChangeCounter keeps: the count of a key (the sum of its shards), for
// an answer's entity tag (platform/http/entity-tag.ts). Reads of one turn of the event loop share one statement.
import { sql } from 'kysely';
import { batchedLookup } from './batched-lookup.js';
import type { DataAccess } from './data-access.js';
import { changeCount, type Dialect } from './dialects/dialect.js';

/**
 * The change count of a key of `counterTable`, given as the values of `keys` (a prefix of the counter's key columns,
 * so that a count may sum a range: the forms of a tenant), as decimal text ('0' before any change). A count read
 * before an answer's rows is no newer than they are: where it is what it was, nothing under the key changed since.
 */
export function changeCountReader(
  data: DataAccess,
  dialect: Dialect,
  counterTable: string,
  keys: readonly string[],
): (values: readonly string[]) => Promise<string> {
  const columns = Object.fromEntries(keys.map((_, i) => [`k${i}`, 'text' as const]));
  // The same subquery the lists use (Dialect's changeCount), correlated with the batch's rows instead of one key.
  const count = changeCount(counterTable, Object.fromEntries(keys.map((key, i) => [key, sql.ref(`r.k${i}`)])));
  const lookup = batchedLookup<readonly string[], { changes: unknown }>(data, dialect, {
    name: `change-count:${counterTable}:${keys.join(',')}`,
    columns,
    record: (values) => Object.fromEntries(values.map((v, i) => [`k${i}`, v])),
    query: (records) => records.select(['r.n', count.as('changes')]),
  });
  return async (values) => String((await lookup(values))?.changes ?? 0);
}

// Reading the change counts that Dialect.createChangeCounter keeps: the count of a key (the sum of its shards), for
// an answer's entity tag (platform/http/entity-tag.ts). Reads of one turn of the event loop share one statement.
import { sql } from 'kysely';
import { batchedLookup } from './batched-lookup.js';
import type { DataAccess } from './data-access.js';
import type { Dialect } from './dialects/dialect.js';

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
  const of = keys.map((key, i) => sql`q__c.${sql.ref(key)} = r.${sql.ref(`k${i}`)}`);
  const count = sql<string>`(SELECT coalesce(sum(q__c.changes), 0) FROM ${sql.table(counterTable)} q__c
    WHERE ${sql.join(of, sql` AND `)})`;
  const lookup = batchedLookup<readonly string[], { changes: unknown }>(data, dialect, {
    name: `change-count:${counterTable}:${keys.join(',')}`,
    columns,
    record: (values) => Object.fromEntries(values.map((v, i) => [`k${i}`, v])),
    query: (records) => records.select(['r.n', count.as('changes')]),
  });
  return async (values) => String((await lookup(values))?.changes ?? 0);
}

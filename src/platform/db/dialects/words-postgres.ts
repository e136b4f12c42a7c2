// PostgreSQL's full-text index of words: a tsvector per item key built from the service's words as they are
// (array_to_tsvector: no parser, no dictionary), with a GIN index (its pending list keeps inserts cheap), searched with
// tsqueries of quoted lexemes. The reserved tokens (text-terms.ts reservedToken) are lexemes of the same tsvector: no
// query word or prefix can equal or start like one, and the pattern search skips them.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { isReservedToken, RESERVED_TOKEN_MARK } from '../../query/text-terms.js';
import type { WordIndexDialect } from './dialect.js';
import type { TextSearch } from '../../query/text-terms.js';

const TABLE = /^[a-z_][a-z0-9_]*$/;
const table = (name: string) => {
  if (!TABLE.test(name)) throw new Error(`not a table name: ${name}`);
  return sql.table(name);
};
/** Tokens as a tsquery, any one of them: `('t1' | 't2')`. */
const anyToken = (tokens: string[]) => {
  for (const token of tokens) if (!isReservedToken(token)) throw new Error('not a reserved token');
  return `(${tokens.map((t) => `'${t}'`).join(' | ')})`;
};

/** The condition on a row of the index that its words match the search (and, with `anyOf`, it holds one of them). */
function matches(search: TextSearch, anyOf?: string[]): RawBuilder<SqlBool> {
  const also = anyOf ? ` & ${anyToken(anyOf)}` : '';
  // Words are letters and digits only, so quoted they are lexemes as they are (no operator, no quote inside).
  if (search.kind === 'words')
    return sql<SqlBool>`tsv @@ ${search.words.map((w) => `'${w}'`).join(' & ') + also}::tsquery`;
  if (search.kind === 'prefix') return sql<SqlBool>`tsv @@ ${`'${search.prefix}':*${also}`}::tsquery`;
  // Inner wildcards: a pattern over the words of every item (no GIN lookup can answer it); tokens are not words.
  return sql<SqlBool>`EXISTS (SELECT 1 FROM unnest(tsvector_to_array(tsv)) AS q__w(w)
      WHERE q__w.w LIKE ${search.pattern} AND q__w.w NOT LIKE ${`${RESERVED_TOKEN_MARK}%`})`;
}

export const postgresWords: WordIndexDialect = {
  async create(db, name) {
    await sql`CREATE TABLE ${table(name)} (item_seq bigint PRIMARY KEY, tsv tsvector NOT NULL)`.execute(db);
    await sql`CREATE INDEX ${sql.id(`${name}_tsv_idx`)} ON ${table(name)} USING gin (tsv)`.execute(db);
  },
  insert: (name, rows) =>
    sql`INSERT INTO ${table(name)} (item_seq, tsv) VALUES ${sql.join(rows.map(({ seq, words, tokens }) => sql`(${seq}, array_to_tsvector(${[...words, ...tokens]}::text[]))`))}`,
  remove: (name, seq) => sql`DELETE FROM ${table(name)} WHERE item_seq = ${seq}`,
  match: (name, search, anyOf) => sql`SELECT item_seq AS seq FROM ${table(name)} WHERE ${matches(search, anyOf)}`,
  // A scalar subquery, never pulled up into a join: one probe of the key's row (its primary key) per item tested.
  matchKey: (name, search, key, anyOf) =>
    sql<SqlBool>`((SELECT 1 FROM ${table(name)} WHERE item_seq = ${key} AND ${matches(search, anyOf)}) IS NOT NULL)`,
};

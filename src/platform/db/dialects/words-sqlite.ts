// SQLite's full-text index of words: an FTS5 table keyed by rowid (the item's key), fed with the service's words
// (space-separated letters and digits, already folded: the unicode61 tokenizer splits them at the spaces and changes
// nothing else). `detail=none`: no positions (phrases are checked in the document), a smaller index. The reserved
// tokens (text-terms.ts reservedToken) have a column of their own, so that a pattern over the words never sees them; a
// MATCH reaches both columns (detail=none has no column filters), which is safe as no query word can equal a token.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { isReservedToken } from '../../query/text-terms.js';
import type { WordIndexDialect } from './dialect.js';
import type { TextSearch } from '../../query/text-terms.js';

const TABLE = /^[a-z_][a-z0-9_]*$/;
const table = (name: string) => {
  if (!TABLE.test(name)) throw new Error(`not a table name: ${name}`);
  return sql.table(name);
};
/** Tokens quoted for a MATCH, any one of them: `("t1" OR "t2")`. */
const anyToken = (tokens: string[]) => {
  for (const token of tokens) if (!isReservedToken(token)) throw new Error('not a reserved token');
  return `(${tokens.map((t) => `"${t}"`).join(' OR ')})`;
};

/** The condition on a row of the index `t` that its words match the search (and, with `anyOf`, it holds one of them). */
function matches(t: RawBuilder<unknown>, search: TextSearch, anyOf?: string[]): RawBuilder<SqlBool> {
  const also = anyOf ? ` AND ${anyToken(anyOf)}` : '';
  // Words are letters and digits only, so inside double quotes they are plain strings (never FTS5 operators).
  if (search.kind === 'words')
    return sql<SqlBool>`${t} MATCH ${search.words.map((w) => `"${w}"`).join(' AND ') + also}`;
  if (search.kind === 'prefix') return sql<SqlBool>`${t} MATCH ${`"${search.prefix}"*${also}`}`;
  // Inner wildcards: a pattern over the single words of every item (no FTS5 lookup can answer it). The LIKE over
  // the words as one text is the quick test, but its % and _ also match the spaces between words ("a*o" would match
  // "alpha bravo"); so the words of the rows it keeps are then tested one by one (letters and digits only: safe
  // inside a JSON array's quotes).
  return sql<SqlBool>`(' ' || words || ' ') LIKE ${`% ${search.pattern} %`}
      AND EXISTS (SELECT 1 FROM json_each('["' || replace(words, ' ', '","') || '"]') AS q__j WHERE q__j.value LIKE ${search.pattern})`;
}

export const sqliteWords: WordIndexDialect = {
  async create(db, name) {
    // The private-use mark of the tokens is a token character of unicode61 (category Co), so a token stays whole.
    await sql`CREATE VIRTUAL TABLE ${table(name)} USING fts5(words, tokens, tokenize = 'unicode61 remove_diacritics 0', detail = none)`.execute(
      db,
    );
  },
  insert: (name, rows) =>
    sql`INSERT INTO ${table(name)} (rowid, words, tokens) VALUES ${sql.join(rows.map(({ seq, words, tokens }) => sql`(${seq}, ${words.join(' ')}, ${tokens.join(' ')})`))}`,
  remove: (name, seq) => sql`DELETE FROM ${table(name)} WHERE rowid = ${seq}`,
  match: (name, search, anyOf) =>
    sql`SELECT rowid AS seq FROM ${table(name)} WHERE ${matches(table(name), search, anyOf)}`,
  // The matching keys once per statement (an IN list SQLite builds on first use), each item then a lookup in it: a
  // MATCH per item cost ~13 us (FTS5 parses the query and opens its lists again each time), the whole list of 10,000
  // matches about as much as 100 of those. Within the walk's keys, FTS5 seeks to the range's first key and stops after
  // its last: the list follows the walk, not the matches (a page of a term in one readable item in five: at 600,000
  // items, the walk's statement 17 -> 4.2 ms of CPU).
  matchKey: (name, search, key, anyOf, within) => {
    const range = within ? sql` AND rowid BETWEEN ${within.from} AND ${within.to}` : sql``;
    return sql<SqlBool>`(${key} IN (SELECT rowid FROM ${table(name)} WHERE ${matches(table(name), search, anyOf)}${range}))`;
  },
};

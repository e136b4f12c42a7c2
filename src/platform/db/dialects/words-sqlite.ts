// SQLite's full-text index of words: an FTS5 table keyed by rowid (the item's key), fed with the service's words
// (space-separated letters and digits, already folded: the unicode61 tokenizer splits them at the spaces and changes
// nothing else). `detail=none`: no positions (phrases are checked in the document), a smaller index.
import { sql } from 'kysely';
import type { WordIndexDialect } from './dialect.js';

const TABLE = /^[a-z_][a-z0-9_]*$/;
const table = (name: string) => {
  if (!TABLE.test(name)) throw new Error(`not a table name: ${name}`);
  return sql.table(name);
};

export const sqliteWords: WordIndexDialect = {
  async create(db, name) {
    await sql`CREATE VIRTUAL TABLE ${table(name)} USING fts5(words, tokenize = 'unicode61 remove_diacritics 0', detail = none)`.execute(db);
  },
  insert: (name, seq, words) => sql`INSERT INTO ${table(name)} (rowid, words) VALUES (${seq}, ${words.join(' ')})`,
  remove: (name, seq) => sql`DELETE FROM ${table(name)} WHERE rowid = ${seq}`,
  match(name, search) {
    const t = table(name);
    // Words are letters and digits only, so inside double quotes they are plain strings (never FTS5 operators).
    if (search.kind === 'words') return sql`SELECT rowid AS seq FROM ${t} WHERE ${t} MATCH ${search.words.map((w) => `"${w}"`).join(' AND ')}`;
    if (search.kind === 'prefix') return sql`SELECT rowid AS seq FROM ${t} WHERE ${t} MATCH ${`"${search.prefix}"*`}`;
    // Inner wildcards: a pattern over the words of every item (no FTS5 lookup can answer it).
    return sql`SELECT rowid AS seq FROM ${t} WHERE (' ' || words || ' ') LIKE ${`% ${search.pattern} %`}`;
  },
};

// Words of text, for the full-text part of the value index: the same in JavaScript on both engines, so a bare query
// term finds the same items on SQLite and PostgreSQL. Pure.
import { createHash } from 'node:crypto';

/** Characters of an indexed word; a longer word is indexed (and searched) by its first characters. */
export const WORD_LENGTH = 64;

const MARKS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/**
 * The mark of a words index's reserved tokens (reservedToken): a private-use character. Words are runs of letters and
 * digits (wordsOf), so no word, prefix or pattern of a query can hold it, and no query term can match such a token.
 */
export const RESERVED_TOKEN_MARK = '\ue000';

/**
 * A reserved token of a words index, naming what its parts name (for storage: a tenant, a store and a grantee who may
 * read an item): the mark and 128 bits of their SHA-256, so tokens of different parts never meet. A search that
 * requires one of the caller's tokens finds only the items the caller may read, inside the index.
 */
export function reservedToken(...parts: string[]): string {
  return `${RESERVED_TOKEN_MARK}${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)}`;
}

const RESERVED_TOKEN = new RegExp(`^${RESERVED_TOKEN_MARK}[0-9a-f]{32}$`);

/** Whether the text is a token of `reservedToken` (the words indexes check what they put into a search). */
export function isReservedToken(text: string): boolean {
  return RESERVED_TOKEN.test(text);
}

/** Text of ASCII characters only: NFKD and the removal of marks leave it as it is. */
const ASCII = /^[\x00-\x7f]*$/;

/** Case and accents folded: NFKD, combining marks removed, lower case ("Éclair" and "eclair" are one word). */
export function foldText(text: string): string {
  // Every write folds the text of its item (wordsOf): ASCII text skips what cannot change it (a 10-leaf item's words
  // 5.3 -> 2 us).
  if (ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/** The words of a text: runs of letters and digits after folding, each cut to WORD_LENGTH. */
export function wordsOf(text: string): string[] {
  const out: string[] = [];
  const parts = foldText(text).split(SEPARATORS);
  for (let i = 0; i < parts.length; i++) {
    const word = parts[i];
    if (word === '') continue;
    // A word of at most WORD_LENGTH code units has at most as many code points: nothing to cut.
    out.push(word.length <= WORD_LENGTH ? word : Array.from(word).slice(0, WORD_LENGTH).join(''));
  }
  return out;
}

/**
 * A bare query term as the index searches it. `words`: every word must occur in the item (a phrase, or a term such
 * as "e-mail" that is two words, needs them all; the phrase itself is then checked in the document). `prefix`: the
 * term is a word followed by `*` (the words that start with it). `like`: any other wildcard term, a LIKE pattern
 * (backslash escapes) over single words, its characters other than letters, digits, `*` and `?` removed.
 */
export type TextSearch =
  | { kind: 'words'; words: string[]; phrase: boolean }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'like'; pattern: string };

export function textSearch(term: string, quoted: boolean): TextSearch {
  if (quoted || !/[*?]/.test(term)) {
    const words = [...new Set(wordsOf(term))];
    return { kind: 'words', words, phrase: quoted && words.length > 1 };
  }
  const folded = foldText(term).replace(/[^\p{L}\p{N}*?]+/gu, '');
  const prefix = /^([\p{L}\p{N}]+)\*+$/u.exec(folded);
  if (prefix) return { kind: 'prefix', prefix: Array.from(prefix[1]).slice(0, WORD_LENGTH).join('') };
  let pattern = '';
  for (const ch of folded.replace(/\*+/g, '*')) pattern += ch === '*' ? '%' : ch === '?' ? '_' : ch;
  return { kind: 'like', pattern };
}

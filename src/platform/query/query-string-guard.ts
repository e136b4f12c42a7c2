// A linear pre-scan of the `query` string before it reaches the PEG parser. The parser backtracks
// exponentially on some invalid inputs (measured: seconds for a few hundred characters with an error after
// nested groups), so limits are enforced and the usual errors are caught here, in one pass.
import { QUERY_LIMITS } from './limits.js';
import { QUERY_ERRORS } from './query.errors.js';

const BINARY = new Set(['AND', 'OR', '&&', '||', 'AND NOT', 'OR NOT']);

/** Validates limits and balance; returns the query with whitespace runs (outside phrases) collapsed to one space. */
export function guardQueryString(query: string): string {
  if (query.length > QUERY_LIMITS.queryLength) {
    throw QUERY_ERRORS.invalidQuery(`the query is limited to ${QUERY_LIMITS.queryLength} characters`);
  }
  if (query.includes('\u0000')) throw QUERY_ERRORS.invalidQuery('the query must not contain NUL characters');
  let out = '';
  let depth = 0;
  let inRange = false;
  let rangeStart = 0;
  // Tokens outside phrases and ranges, to check operator placement: words, '(' and ')'.
  const tokens: string[] = [];
  let word = '';
  let count = 0;
  const endWord = (beforeParen = false) => {
    if (word !== '') {
      checkWord(word, beforeParen);
      tokens.push(word);
      count++;
      word = '';
    }
  };
  for (let i = 0; i < query.length; i++) {
    const ch = query[i];
    if (ch === '\\') {
      if (i + 1 >= query.length) throw QUERY_ERRORS.invalidQuery('the query ends with a lone backslash');
      out += ch + query[i + 1];
      word += ch + query[++i];
      continue;
    }
    if (ch === '"') {
      const close = findPhraseEnd(query, i + 1);
      if (close < 0) throw QUERY_ERRORS.invalidQuery('a phrase is not closed by "');
      out += query.slice(i, close + 1);
      // A phrase is one token (`field:"..."` included).
      word += '"';
      i = close;
      continue;
    }
    if (/\s/.test(ch)) {
      if (!inRange) endWord();
      if (!out.endsWith(' ')) out += ' ';
      continue;
    }
    out += ch;
    if (inRange) {
      if (ch === ']' || ch === '}') {
        inRange = false;
        word += ch;
        if (!/^[[{] ?[^ ]+ TO [^ ]+ ?[\]}]$/.test(out.slice(rangeStart))) {
          throw QUERY_ERRORS.invalidQuery('a range reads [from TO to] or {from TO to}');
        }
      } else if (ch === '[' || ch === '{' || ch === '(' || ch === ')') {
        throw QUERY_ERRORS.invalidQuery('a range may not contain brackets or parentheses');
      }
      continue;
    }
    if (word === '' && (ch === '-' || ch === '!' || ch === '+') && query[i + 1] === '(') {
      // The grammar takes prefixes on terms only; `-(group)` is `NOT (group)`.
      if (ch === '+') throw QUERY_ERRORS.invalidQuery('+ before a group is not supported; join it with AND');
      out = `${out.slice(0, -1)}NOT `;
      tokens.push('NOT');
    } else if (ch === '[' || ch === '{') {
      inRange = true;
      rangeStart = out.length - 1;
      word += ch;
    } else if (ch === '/' || ch === '~') {
      throw QUERY_ERRORS.invalidQuery(
        ch === '/'
          ? 'regular expressions are not supported (escape / as \\/)'
          : 'fuzzy and proximity searches (~) are not supported',
      );
    } else if (ch === '^' && (word === '' || !/^(0\.\d+|\d+)(\s|\)|$)/.test(query.slice(i + 1, i + 24)))) {
      throw QUERY_ERRORS.invalidQuery('^ needs a number (boost)');
    } else if (ch === ']' || ch === '}') {
      throw QUERY_ERRORS.invalidQuery(`unexpected ${ch}`);
    } else if (ch === '(') {
      endWord(true);
      depth++;
      if (depth > QUERY_LIMITS.queryDepth) {
        throw QUERY_ERRORS.invalidQuery(`parentheses may nest at most ${QUERY_LIMITS.queryDepth} deep`);
      }
      tokens.push('(');
    } else if (ch === ')') {
      endWord();
      depth--;
      if (depth < 0) throw QUERY_ERRORS.invalidQuery('unexpected )');
      tokens.push(')');
    } else {
      word += ch;
    }
    if (count > QUERY_LIMITS.queryTokens) break;
  }
  if (inRange) throw QUERY_ERRORS.invalidQuery('a range is not closed by ] or }');
  endWord();
  if (count > QUERY_LIMITS.queryTokens) {
    throw QUERY_ERRORS.invalidQuery(`the query is limited to ${QUERY_LIMITS.queryTokens} terms and operators`);
  }
  if (depth !== 0) throw QUERY_ERRORS.invalidQuery('a ( is not closed');
  checkOperators(tokens);
  return out.trim();
}

/** A word holds at most one field separator, not first, and `field:` is directly followed by a value or `(`. */
function checkWord(word: string, beforeParen: boolean): void {
  const colons: number[] = [];
  for (let i = 0; i < word.length; i++) {
    if (word[i] === '\\') i++;
    else if (word[i] === ':') colons.push(i);
  }
  if (colons.length > 1) throw QUERY_ERRORS.invalidQuery(`escape the second : in ${word.slice(0, 64)} as \\:`);
  if (colons[0] === 0) throw QUERY_ERRORS.invalidQuery(`${word.slice(0, 64)} needs a field name before :`);
  if (colons[0] === word.length - 1 && !beforeParen)
    throw QUERY_ERRORS.invalidQuery(`${word.slice(0, 64)} needs a value`);
}

function findPhraseEnd(query: string, from: number): number {
  for (let i = from; i < query.length; i++) {
    if (query[i] === '\\') i++;
    else if (query[i] === '"') return i;
  }
  return -1;
}

/** Operators need operands: no binary operator first, last, after another operator or next to a parenthesis. */
function checkOperators(tokens: string[]): void {
  const merged: string[] = [];
  for (const t of tokens) {
    const prev = merged[merged.length - 1];
    if (t === 'NOT' && (prev === 'AND' || prev === 'OR')) merged[merged.length - 1] = `${prev} NOT`;
    else merged.push(t);
  }
  merged.forEach((t, i) => {
    const prev = merged[i - 1];
    const next = merged[i + 1];
    const isOp = (x?: string) => x !== undefined && (BINARY.has(x) || x === 'NOT');
    if (BINARY.has(t) && (prev === undefined || prev === '(' || isOp(prev))) {
      throw QUERY_ERRORS.invalidQuery(`${t} needs something before it`);
    }
    if ((BINARY.has(t) || t === 'NOT') && (next === undefined || next === ')' || isOp(next))) {
      throw QUERY_ERRORS.invalidQuery(`${t} needs something after it`);
    }
  });
}

// Small pure helpers shared by the filter and query-string parsers.
import { QUERY_LIMITS } from './limits.js';
import { QUERY_ERRORS } from './query.errors.js';
import type { CompareOp, Comparison, ValueTest } from './query-ast.js';
import { parseDateValue, type Zone } from './timezone.js';

// Control characters, and the characters a SQLite JSON path cannot quote.
const BAD_PATH_CHARS = /[\u0000-\u001f\u007f"\\]/;

/** A property is a dotted path of non-empty segments without control characters, quotes or backslashes. */
export function validateProperty(property: unknown, path: string): string {
  if (typeof property !== 'string') throw QUERY_ERRORS.invalidProperty(path, 'property must be a string');
  if (property.length === 0 || property.length > QUERY_LIMITS.propertyLength) {
    throw QUERY_ERRORS.invalidProperty(path, `property must have 1 to ${QUERY_LIMITS.propertyLength} characters`);
  }
  if (BAD_PATH_CHARS.test(property)) {
    throw QUERY_ERRORS.invalidProperty(path, 'property must not contain control characters, quotes or backslashes');
  }
  const segments = property.split('.');
  if (segments.length > QUERY_LIMITS.propertySegments || segments.some((s) => s.length === 0)) {
    throw QUERY_ERRORS.invalidProperty(
      path,
      `property must be a dotted path of at most ${QUERY_LIMITS.propertySegments} non-empty segments`,
    );
  }
  return property;
}

/** True when a path segment can go into a JSON path argument (the dialects check again before building SQL). */
export function isSafePathSegment(segment: string): boolean {
  return segment.length > 0 && segment.length <= QUERY_LIMITS.propertyLength && !BAD_PATH_CHARS.test(segment);
}

/** Value length limit; NUL is refused (PostgreSQL text cannot hold it, and no stored string contains it). */
export function checkValueLength(value: string, path: string): string {
  if (value.length > QUERY_LIMITS.valueLength) {
    throw QUERY_ERRORS.invalidFilter(path, `values are limited to ${QUERY_LIMITS.valueLength} characters`);
  }
  if (value.includes('\u0000')) throw QUERY_ERRORS.invalidFilter(path, 'values must not contain NUL characters');
  return value;
}

export interface LikeOptions {
  /** `\x` stands for a literal x (query strings); otherwise a backslash is literal. */
  backslashEscapes?: boolean;
  /** `*` and `?` are literal too (phrases). */
  literal?: boolean;
  /** Literal characters are written as they appear inside a JSON string (`"` as `\"`), for searching JSON text. */
  jsonText?: boolean;
}

/**
 * A wildcard pattern (`*` any run, `?` one character) as a SQL LIKE pattern with backslash as escape character.
 * Consecutive `*` collapse into one; more than the wildcard limit is a 400.
 */
export function toLikePattern(text: string, options: LikeOptions, path: string): string {
  let out = '';
  let wildcards = 0;
  let lastWasStar = false;
  const literal = (ch: string) => {
    const encoded = options.jsonText ? JSON.stringify(ch).slice(1, -1) : ch;
    for (const c of encoded) out += escapeLikeChar(c);
    lastWasStar = false;
  };
  // By code point: a surrogate pair must reach JSON.stringify whole, or it comes out as two \u escapes.
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (options.backslashEscapes && ch === '\\' && i + 1 < chars.length) {
      literal(chars[++i]);
    } else if (options.literal || (ch !== '*' && ch !== '?')) {
      literal(ch);
    } else if (ch === '?') {
      out += '_';
      wildcards++;
      lastWasStar = false;
    } else if (!lastWasStar) {
      out += '%';
      wildcards++;
      lastWasStar = true;
    }
  }
  if (wildcards > QUERY_LIMITS.wildcards) {
    throw QUERY_ERRORS.invalidFilter(path, `at most ${QUERY_LIMITS.wildcards} wildcards per value`);
  }
  return out;
}

function escapeLikeChar(ch: string): string {
  return ch === '%' || ch === '_' || ch === '\\' ? `\\${ch}` : ch;
}

/** A LIKE pattern that finds the literal text anywhere. */
export function containsPattern(likePattern: string): string {
  return `%${likePattern}%`;
}

/** True when the text holds an unescaped `*` or `?`. */
export function hasWildcard(text: string, backslashEscapes: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    if (backslashEscapes && text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === '*' || text[i] === '?') return true;
  }
  return false;
}

/** Drops the backslash of Lucene escapes (`\:` -> `:`). */
export function unescapeLucene(text: string): string {
  return text.replace(/\\(.)/gs, '$1');
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number a text reads as, or undefined. */
export function numberOf(text: string): number | undefined {
  if (!NUMBER.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Tests for texts compared with range operators (one bound, or both of a range). All bounds dates: compared as
 * instants. All numbers: compared with stored numbers numerically and with stored strings lexically. Otherwise
 * lexically with stored strings.
 */
export function rangeTests(bounds: Array<{ op: CompareOp; text: string }>, zone: Zone, path: string): ValueTest[] {
  const dates = bounds.map((b) => parseDateValue(b.text, zone, path));
  if (dates.every((d) => d !== null)) {
    return [{ kind: 'instant', conds: bounds.map((b, i) => ({ op: b.op, value: dates[i]!.ms })) }];
  }
  const tests: ValueTest[] = [];
  const numbers = bounds.map((b) => numberOf(b.text));
  if (numbers.every((n) => n !== undefined)) {
    tests.push({ kind: 'number', conds: bounds.map((b, i) => ({ op: b.op, value: numbers[i]! })) });
  }
  tests.push({ kind: 'string', conds: bounds.map((b) => ({ op: b.op, value: b.text })) });
  return tests;
}

/**
 * Tests for equality with a text (query-string terms, string filter values). Strings compare case-insensitively
 * (query string) or exactly (filter); a text that reads as a number or boolean also matches that number or
 * boolean; a date also matches datetime columns as an instant (a date-only value: the whole day).
 */
export function equalityTests(text: string, caseInsensitive: boolean, zone: Zone, path: string): ValueTest[] {
  const tests: ValueTest[] = [
    caseInsensitive ? { kind: 'stringCi', value: text } : { kind: 'string', conds: [{ op: '=', value: text }] },
  ];
  const n = numberOf(text);
  if (n !== undefined) tests.push({ kind: 'number', conds: [{ op: '=', value: n }] });
  if (text === 'true' || text === 'false') tests.push({ kind: 'boolean', value: text === 'true' });
  const date = parseDateValue(text, zone, path);
  if (date) {
    const conds: Comparison<number>[] = date.dateOnly
      ? [
          { op: '>=', value: date.ms },
          { op: '<', value: date.endMs },
        ]
      : [{ op: '=', value: date.ms }];
    tests.push({ kind: 'instant', conds, columnsOnly: true });
  }
  return tests;
}

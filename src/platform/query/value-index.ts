// The value index of JSON documents: one row per (path, typed scalar) of a document, so a list's filters and sorts
// read index ranges instead of every document. Pure: which rows a document has. The SQL over them is in
// compile-indexed.ts and the dialects; a module keeps the rows in its own table (see docs/api/storage.md).
import { QUERY_LIMITS } from './limits.js';
import { isSafePathSegment } from './values.js';
import { wordsOf } from './text-terms.js';

/**
 * Kinds of index rows (column `t`). A row of kind number, string or boolean is exact: the index answers any test on it.
 * `longString` marks a string too long to index at that path (the query reads that document); `elementCompound` an
 * array element that is an object or array (present, but no test value). Objects and arrays themselves have no row
 * (but a marker where the module asks for them, see documentIndex): a sort on a path without an exact row reads the document (where the value is missing, an object or an array). The words
 * of the item's strings and numbers (text-terms.ts) go to the engine's full-text index (Dialect.words); a `wordsCut`
 * row (path '') says the item has more words than indexed (a bare term then reads its document).
 */
export const VALUE_KIND = {
  number: 0,
  string: 1,
  boolean: 2,
  elementCompound: 3,
  arrayMarker: 4,
  longString: 5,
  objectMarker: 6,
  wordsCut: 8,
} as const;

/**
 * The forms a value at a path takes, as bits (DocumentIndex.forms): a module may keep their union per path, so that a
 * query knows whether every value at a path is one kind of scalar (then a walk of that path's index rows is in the
 * sort's order; compile-indexed.ts and the dialects' indexedOrderBy give the order of the other forms).
 */
export const VALUE_FORM = { number: 1, string: 2, boolean: 4, longString: 8, array: 16, object: 32 } as const;

/** Caps beyond which a value is stored but not indexed; the query still answers it by reading the document. */
export const VALUE_INDEX_LIMITS = {
  /** Rows of one document; a document with more is not indexed at all (its flag says so). */
  rows: 1000,
  /** Characters of an indexed string; a longer one gets a `longString` row. */
  stringLength: 256,
  /** Segments of an indexed path: a deeper value cannot be named by a query (QUERY_LIMITS.propertySegments). */
  depth: QUERY_LIMITS.propertySegments,
  /** Distinct words of one document in the full-text index. */
  words: 1000,
} as const;

/** [dotted path, kind, array element (1) or the value at the path itself (0), number, string]. */
export type ValueIndexRow = [path: string, t: number, elem: 0 | 1, num: number | null, str: string | null];

export interface DocumentIndex {
  /** False when the document exceeds VALUE_INDEX_LIMITS.rows: no rows are kept, every query reads it. */
  complete: boolean;
  rows: ValueIndexRow[];
  /** The document's words for the full-text index (Dialect.words), each once. */
  words: string[];
  /** With the option `forms`: the forms (VALUE_FORM bits) of the values at each path, objects and arrays included. */
  forms?: Map<string, number>;
}

/**
 * The index rows of the top-level fields `roots` of `doc`. Paths are the dotted property paths of the query language;
 * values inside arrays are indexed at the array's path (a filter matches any element), array elements are not
 * descended into (a dotted path cannot name them), and keys a dotted path cannot name (empty, with a dot, a quote, a
 * backslash or a control character) are skipped with what is beneath them. `null` has no row (it reads as missing).
 * `words: false`: no full-text words (a module without bare-term search). `markers: true`: a row of kind `arrayMarker` or
 * `objectMarker` at the path of every array and object below the roots, so that "no value at this path is anything but
 * one kind of scalar" is one index probe (a sort may then walk the index in order); markers match no test.
 */
export function documentIndex(
  doc: Record<string, unknown>,
  roots: ReadonlySet<string>,
  options: { words?: boolean; markers?: boolean; forms?: boolean } = {},
): DocumentIndex {
  const rows: ValueIndexRow[] = [];
  const forms = options.forms ? new Map<string, number>() : undefined;
  const markers = options.markers === true;
  // Iterative, like the depth check of writes: documents nest up to 64 levels and nothing here may recurse on input.
  // Three stacks side by side and indexed loops, no tuples, destructuring or iterators: every write runs this walk,
  // and a fresh process compiles it (with what it inlines) several times smaller that way.
  const paths: string[] = [];
  const depths: number[] = [];
  const values: unknown[] = [];
  const keys = Object.keys(doc);
  for (let i = 0; i < keys.length; i++) {
    if (!roots.has(keys[i])) continue;
    paths.push(keys[i]);
    depths.push(1);
    values.push(doc[keys[i]]);
  }
  while (values.length > 0) {
    const path = paths.pop()!;
    const depth = depths.pop()!;
    const value = values.pop();
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      if (forms) addForm(forms, path, VALUE_FORM.array);
      if (markers) rows.push([path, VALUE_KIND.arrayMarker, 0, null, null]);
      for (let i = 0; i < value.length; i++) {
        const element: unknown = value[i];
        if (element === null) continue;
        rows.push(
          typeof element === 'object' ? [path, VALUE_KIND.elementCompound, 1, null, null] : scalarRow(path, 1, element),
        );
      }
    } else if (typeof value === 'object') {
      if (forms) addForm(forms, path, VALUE_FORM.object);
      if (markers && depth > 1) rows.push([path, VALUE_KIND.objectMarker, 0, null, null]);
      if (depth >= VALUE_INDEX_LIMITS.depth) continue;
      const names = Object.keys(value);
      for (let i = 0; i < names.length; i++) {
        const key = names[i];
        if (key.includes('.') || !isSafePathSegment(key)) continue;
        paths.push(`${path}.${key}`);
        depths.push(depth + 1);
        values.push((value as Record<string, unknown>)[key]);
      }
    } else {
      const row = scalarRow(path, 0, value);
      if (forms) addForm(forms, path, FORM_OF_KIND[row[1]]);
      rows.push(row);
    }
    if (rows.length > VALUE_INDEX_LIMITS.rows)
      return { complete: false, rows: [], words: [], forms: forms && new Map() };
  }
  if (options.words === false) return { complete: true, rows, words: [], forms };
  const { words, cut } = documentWords(doc, roots);
  if (cut) rows.push(['', VALUE_KIND.wordsCut, 0, null, null]);
  return { complete: true, rows, words, forms };
}

function addForm(forms: Map<string, number>, path: string, bit: number): void {
  forms.set(path, (forms.get(path) ?? 0) | bit);
}

/**
 * The words of the strings and numbers anywhere under the roots (inside arrays too), each once, at most
 * VALUE_INDEX_LIMITS.words; `cut` when there were more. Written as documentIndex's walk is, for the same reason.
 */
function documentWords(doc: Record<string, unknown>, roots: ReadonlySet<string>): { words: string[]; cut: boolean } {
  const seen = new Set<string>();
  const words: string[] = [];
  const stack: unknown[] = [];
  const keys = Object.keys(doc);
  for (let i = 0; i < keys.length; i++) if (roots.has(keys[i])) stack.push(doc[keys[i]]);
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string' || typeof value === 'number') {
      const found = wordsOf(String(value));
      for (let i = 0; i < found.length; i++) {
        const word = found[i];
        if (seen.has(word)) continue;
        if (words.length === VALUE_INDEX_LIMITS.words) return { words, cut: true };
        seen.add(word);
        words.push(word);
      }
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push(value[i]);
    } else if (value !== null && typeof value === 'object') {
      const names = Object.keys(value);
      for (let i = 0; i < names.length; i++) stack.push((value as Record<string, unknown>)[names[i]]);
    }
  }
  return { words, cut: false };
}

const FORM_OF_KIND: Record<number, number> = {
  [VALUE_KIND.number]: VALUE_FORM.number,
  [VALUE_KIND.string]: VALUE_FORM.string,
  [VALUE_KIND.boolean]: VALUE_FORM.boolean,
  [VALUE_KIND.longString]: VALUE_FORM.longString,
};

function scalarRow(path: string, elem: 0 | 1, value: unknown): ValueIndexRow {
  if (typeof value === 'number') return [path, VALUE_KIND.number, elem, value, null];
  if (typeof value === 'boolean') return [path, VALUE_KIND.boolean, elem, value ? 1 : 0, null];
  const text = String(value);
  return text.length > VALUE_INDEX_LIMITS.stringLength
    ? [path, VALUE_KIND.longString, elem, null, null]
    : [path, VALUE_KIND.string, elem, null, text];
}

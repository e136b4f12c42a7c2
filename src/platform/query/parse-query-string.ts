// The `query` parameter: Lucene query-string syntax, parsed by the `lucene` package and turned into the
// engine-independent tree. Semantics (precedence, +/-, matching) are documented in docs/api/query.md.
import lucene from 'lucene';
import { QUERY_ERRORS } from './query.errors.js';
import { ALL, and, not, or, type CompareOp, type QueryNode, type ValueTest } from './query-ast.js';
import { guardQueryString } from './query-string-guard.js';
import { textSearch } from './text-terms.js';
import type { Zone } from './timezone.js';
import {
  checkValueLength,
  containsPattern,
  equalityTests,
  hasWildcard,
  rangeTests,
  toLikePattern,
  unescapeLucene,
  validateProperty,
} from './values.js';

interface LTerm {
  field: string;
  term: string;
  quoted: boolean;
  regex?: boolean;
  prefix?: string | null;
  similarity?: number | null;
  proximity?: number | null;
}
interface LRange {
  field: string;
  term_min: string;
  term_max: string;
  inclusive: 'both' | 'none' | 'left' | 'right';
}
interface LNode {
  left?: LAny;
  operator?: string;
  right?: LAny;
  start?: string;
  parenthesized?: boolean;
  field?: string;
}
type LAny = LTerm | LRange | LNode;

const IMPLICIT = '<implicit>';
const PATH = 'query';

type Occur = 'must' | 'mustNot' | 'should';
interface Clause {
  node: QueryNode;
  occur: Occur;
}

const isTerm = (x: LAny): x is LTerm => typeof (x as LTerm).term === 'string';
const isRange = (x: LAny): x is LRange => typeof (x as LRange).term_min === 'string';

/** Parses a query string into the tree; empty or blank: matches everything. Syntax errors: 400. */
export function parseQueryString(query: string | undefined | null, zone: Zone): QueryNode {
  if (query === undefined || query === null || query.trim() === '') return ALL;
  const text = guardQueryString(query);
  let ast: LAny;
  try {
    ast = lucene.parse(text) as LAny;
  } catch (err) {
    const column = (err as { location?: { start?: { column?: number } } }).location?.start?.column;
    throw QUERY_ERRORS.invalidQuery(`syntax error${column ? ` at column ${column}` : ''}`);
  }
  return new Converter(zone).group(ast, undefined).node;
}

class Converter {
  constructor(private readonly zone: Zone) {}

  /** A parenthesised group or the whole query: a chain of operands joined by operators. */
  group(node: LAny, defaultField: string | undefined): Clause {
    if (isTerm(node) || isRange(node)) return this.leaf(node, defaultField);
    const field = node.field !== undefined && node.field !== IMPLICIT ? node.field : defaultField;
    if (node.left === undefined) {
      if (node.operator !== undefined) throw QUERY_ERRORS.invalidQuery(`${node.operator} needs operands`);
      return { node: ALL, occur: 'should' };
    }
    // Walk the right-nested chain iteratively: a long query must not recurse per term.
    const operands: Array<{ raw: LAny; negate: boolean }> = [];
    const ops: string[] = [];
    let current: LNode = node;
    let negateNext = isNot(current.start);
    if (current.start !== undefined && !isNot(current.start)) {
      throw QUERY_ERRORS.invalidQuery(`${current.start} needs something before it`);
    }
    for (;;) {
      operands.push({ raw: current.left!, negate: negateNext });
      const right = current.right;
      if (right === undefined) break;
      const op = current.operator ?? IMPLICIT;
      ops.push(op);
      negateNext = op === 'NOT' || op.endsWith(' NOT');
      if (isTerm(right) || isRange(right) || right.parenthesized || right.left === undefined) {
        operands.push({ raw: right, negate: negateNext });
        break;
      }
      if (right.start !== undefined) throw QUERY_ERRORS.invalidQuery(`unexpected ${right.start}`);
      current = right;
    }
    mergeComparisons(operands, ops);
    const clauses = operands.map(({ raw, negate }) => {
      const clause = this.group(raw, field);
      return negate ? { node: not(clause.node), occur: clause.occur } : clause;
    });
    return combine(clauses, ops);
  }

  leaf(leaf: LTerm | LRange, defaultField: string | undefined): Clause {
    // The grammar reads `-field:value` as a field named `-field`: the sign is the clause's prefix.
    const signed = leaf.field !== IMPLICIT && /^[-+!]/.test(leaf.field);
    const prefix = signed ? leaf.field[0] : isTerm(leaf) ? leaf.prefix : null;
    const rawField = signed ? leaf.field.slice(1) : leaf.field;
    if (signed && (rawField === '' || (isTerm(leaf) && leaf.prefix)))
      throw QUERY_ERRORS.invalidQuery('a field name is missing');
    const field = rawField !== IMPLICIT ? unescapeLucene(rawField) : defaultField;
    const occur: Occur = prefix === '+' ? 'must' : prefix === '-' || prefix === '!' ? 'mustNot' : 'should';
    if (isRange(leaf)) {
      if (field === undefined) throw QUERY_ERRORS.invalidQuery('a range needs a field: field:[a TO b]');
      return { node: this.range(validateProperty(field, PATH), leaf), occur };
    }
    if (leaf.regex) throw QUERY_ERRORS.invalidQuery('regular expressions are not supported');
    if (leaf.similarity != null || leaf.proximity != null) {
      throw QUERY_ERRORS.invalidQuery('fuzzy and proximity searches (~) are not supported');
    }
    const raw = checkValueLength(leaf.term, PATH);
    const comparison = leaf.quoted ? undefined : /^(>=|<=|>|<)(.*)$/s.exec(raw);
    if (field === undefined) {
      if (comparison) throw QUERY_ERRORS.invalidQuery('a comparison needs a field: field:>value');
      const pattern = toLikePattern(
        leaf.quoted ? unescapeLucene(raw) : raw,
        { backslashEscapes: !leaf.quoted, literal: leaf.quoted, jsonText: true },
        PATH,
      );
      // The index's search: escaped characters are literal (an escaped * or ? is no wildcard: not a word character).
      const search = leaf.quoted
        ? textSearch(unescapeLucene(raw), true)
        : textSearch(raw.replace(/\\([*?])/g, ' ').replace(/\\(.)/gs, '$1'), false);
      return { node: { type: 'text', pattern: containsPattern(pattern), search }, occur };
    }
    const property = validateProperty(field, PATH);
    let tests: ValueTest[];
    if (comparison) {
      if (comparison[2] === '') throw QUERY_ERRORS.invalidQuery(`${comparison[1]} needs a value`);
      tests = rangeTests([{ op: comparison[1] as CompareOp, text: unescapeLucene(comparison[2]) }], this.zone, PATH);
    } else if (leaf.quoted) {
      tests = equalityTests(unescapeLucene(raw), true, this.zone, PATH);
    } else if (raw === '*') {
      tests = [{ kind: 'present' }];
    } else if (hasWildcard(raw, true)) {
      tests = [{ kind: 'like', pattern: toLikePattern(raw, { backslashEscapes: true }, PATH) }];
    } else {
      tests = equalityTests(unescapeLucene(raw), true, this.zone, PATH);
    }
    return { node: { type: 'predicate', property, tests }, occur };
  }

  range(property: string, leaf: LRange): QueryNode {
    const lowInclusive = leaf.inclusive === 'both' || leaf.inclusive === 'left';
    const highInclusive = leaf.inclusive === 'both' || leaf.inclusive === 'right';
    const bounds: Array<{ op: CompareOp; text: string }> = [];
    if (leaf.term_min !== '*')
      bounds.push({ op: lowInclusive ? '>=' : '>', text: unescapeLucene(checkValueLength(leaf.term_min, PATH)) });
    if (leaf.term_max !== '*')
      bounds.push({ op: highInclusive ? '<=' : '<', text: unescapeLucene(checkValueLength(leaf.term_max, PATH)) });
    const tests: ValueTest[] = bounds.length === 0 ? [{ kind: 'present' }] : rangeTests(bounds, this.zone, PATH);
    return { type: 'predicate', property, tests };
  }
}

const isNot = (op: string | undefined) => op === 'NOT' || op === '!';

/** `field:>"a phrase"` reaches us as `field:>` followed by a phrase; join them back. */
function mergeComparisons(operands: Array<{ raw: LAny; negate: boolean }>, ops: string[]): void {
  for (let i = 0; i < ops.length; i++) {
    const a = operands[i].raw;
    const b = operands[i + 1].raw;
    if (
      ops[i] === IMPLICIT &&
      isTerm(a) &&
      !a.quoted &&
      a.field !== IMPLICIT &&
      /^(>=|<=|>|<)$/.test(a.term) &&
      isTerm(b) &&
      b.quoted &&
      b.field === IMPLICIT &&
      !b.prefix &&
      !operands[i + 1].negate
    ) {
      // The phrase keeps its escapes; comparison values are unescaped later like unquoted ones.
      operands[i] = { raw: { ...a, term: a.term + b.term }, negate: operands[i].negate };
      operands.splice(i + 1, 1);
      ops.splice(i, 1);
      i--;
    }
  }
}

/**
 * Precedence: NOT binds tightest, then AND, then OR; whitespace acts as OR. Within OR-joined clauses a `+` clause
 * is required and a `-` clause excluded; when required clauses exist, the plain ones no longer restrict.
 */
function combine(clauses: Clause[], ops: string[]): Clause {
  const runs: Clause[][] = [[clauses[0]]];
  ops.forEach((op, i) => {
    const joinsAnd = op === 'AND' || op === '&&' || op === 'AND NOT' || op === 'NOT';
    if (joinsAnd) runs[runs.length - 1].push(clauses[i + 1]);
    else runs.push([clauses[i + 1]]);
  });
  const must: QueryNode[] = [];
  const mustNot: QueryNode[] = [];
  const should: QueryNode[] = [];
  for (const run of runs) {
    if (run.length === 1) {
      const c = run[0];
      (c.occur === 'must' ? must : c.occur === 'mustNot' ? mustNot : should).push(c.node);
    } else {
      should.push(and(run.map((c) => (c.occur === 'mustNot' ? not(c.node) : c.node))));
    }
  }
  const parts = [...must, ...mustNot.map(not)];
  if (must.length === 0 && should.length > 0) parts.push(or(should));
  return { node: and(parts), occur: 'should' };
}

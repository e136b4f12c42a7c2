// The `filter` parameter: a JSON array of conditions (decisions.md section 5), validated and normalised.
import type { FilterCondition } from './query.types.js';
import { QUERY_LIMITS } from './limits.js';
import { QUERY_ERRORS } from './query.errors.js';
import { and, not, NONE, type CompareOp, type QueryNode, type ValueTest } from './query-ast.js';
import { checkValueLength, equalityTests, rangeTests, toLikePattern, validateProperty } from './values.js';
import type { Zone } from './timezone.js';

export type FilterOperator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'like' | 'in' | 'exists';
export type FilterScalar = string | number | boolean;

export interface NormalizedCondition {
  property: string;
  operator: FilterOperator;
  /** eq/ne: scalar or null; gt..lte: string or number; like: string; in: scalars; exists: boolean. */
  value: FilterScalar | null | FilterScalar[];
  invert: boolean;
}

const OPERATORS: Record<string, FilterOperator> = {
  eq: 'eq',
  '=': 'eq',
  '==': 'eq',
  ne: 'ne',
  '!=': 'ne',
  '<>': 'ne',
  gt: 'gt',
  '>': 'gt',
  gte: 'gte',
  '>=': 'gte',
  lt: 'lt',
  '<': 'lt',
  lte: 'lte',
  '<=': 'lte',
  like: 'like',
  in: 'in',
  exists: 'exists',
};

const RANGE_OPS: Partial<Record<FilterOperator, CompareOp>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** The operator a condition names, by any of its spellings; undefined for none (own keys only: not `constructor`). */
function filterOperator(name: string): FilterOperator | undefined {
  const key = name.toLowerCase();
  return Object.hasOwn(OPERATORS, key) ? OPERATORS[key] : undefined;
}

/** Whether a condition's operator (any spelling) compares by order: gt, gte, lt, lte. */
export function isRangeOperator(name: string): boolean {
  const operator = filterOperator(name);
  return operator !== undefined && RANGE_OPS[operator] !== undefined;
}

/**
 * Parses and validates the filter. A string that is not JSON: 500 (spec). Anything that parses but is not a valid
 * condition list: 400. Empty string or undefined: no conditions.
 */
export function parseFilter(input: string | FilterCondition[] | undefined | null): NormalizedCondition[] {
  if (input === undefined || input === null) return [];
  let data: unknown = input;
  if (typeof input === 'string') {
    if (input.trim() === '') return [];
    if (input.length > QUERY_LIMITS.filterLength) {
      throw QUERY_ERRORS.invalidFilter('filter', `the filter is limited to ${QUERY_LIMITS.filterLength} characters`);
    }
    try {
      data = JSON.parse(input);
    } catch (err) {
      throw QUERY_ERRORS.filterJson((err as Error).message.slice(0, 200));
    }
  }
  if (!Array.isArray(data)) throw QUERY_ERRORS.invalidFilter('filter', 'the filter must be an array of conditions');
  if (data.length > QUERY_LIMITS.filterConditions) {
    throw QUERY_ERRORS.invalidFilter('filter', `at most ${QUERY_LIMITS.filterConditions} conditions`);
  }
  const conditions = data.map((c, i) => normalizeCondition(c, `filter/${i}`));
  // Each value becomes bound parameters; the engines cap their number per statement.
  const inValues = conditions.reduce((n, c) => n + (Array.isArray(c.value) ? c.value.length : 0), 0);
  if (inValues > QUERY_LIMITS.inValues) {
    throw QUERY_ERRORS.invalidFilter('filter', `in takes at most ${QUERY_LIMITS.inValues} values in all`);
  }
  return conditions;
}

function normalizeCondition(raw: unknown, path: string): NormalizedCondition {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw QUERY_ERRORS.invalidFilter(path, 'a condition must be an object');
  }
  const c = raw as Record<string, unknown>;
  const property = validateProperty(c.property, `${path}/property`);
  if (typeof c.operator !== 'string') throw QUERY_ERRORS.invalidFilter(`${path}/operator`, 'operator must be a string');
  const operator = filterOperator(c.operator);
  if (!operator) {
    throw QUERY_ERRORS.invalidFilter(`${path}/operator`, `unknown operator ${c.operator.slice(0, 32)}`);
  }
  if (c.source !== undefined && c.source !== null && c.source !== 'raw') {
    throw QUERY_ERRORS.invalidFilter(`${path}/source`, 'source must be "raw"');
  }
  if (c.invert !== undefined && c.invert !== null && typeof c.invert !== 'boolean') {
    throw QUERY_ERRORS.invalidFilter(`${path}/invert`, 'invert must be a boolean');
  }
  const value = normalizeValue(operator, c.value, `${path}/value`);
  return { property, operator, value, invert: c.invert === true };
}

function normalizeValue(operator: FilterOperator, value: unknown, path: string): NormalizedCondition['value'] {
  const scalar = (v: unknown, p: string): FilterScalar | undefined => {
    if (typeof v === 'string') return checkValueLength(v, p);
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'boolean') return v;
    return undefined;
  };
  switch (operator) {
    case 'exists':
      if (typeof value !== 'boolean') throw QUERY_ERRORS.invalidFilter(path, 'exists needs the value true or false');
      return value;
    case 'in': {
      if (!Array.isArray(value)) throw QUERY_ERRORS.invalidFilter(path, 'in needs an array value');
      if (value.length > QUERY_LIMITS.inValues) {
        throw QUERY_ERRORS.invalidFilter(path, `in takes at most ${QUERY_LIMITS.inValues} values`);
      }
      return value.map((v, i) => {
        const s = scalar(v, `${path}/${i}`);
        if (s === undefined)
          throw QUERY_ERRORS.invalidFilter(`${path}/${i}`, 'in values must be strings, numbers or booleans');
        return s;
      });
    }
    case 'like':
      if (typeof value !== 'string') throw QUERY_ERRORS.invalidFilter(path, 'like needs a string value');
      return checkValueLength(value, path);
    case 'eq':
    case 'ne': {
      if (value === null) return null;
      const s = scalar(value, path);
      if (s === undefined)
        throw QUERY_ERRORS.invalidFilter(path, `${operator} needs a string, number, boolean or null value`);
      return s;
    }
    default: {
      const s = scalar(value, path);
      if (s === undefined || typeof s === 'boolean') {
        throw QUERY_ERRORS.invalidFilter(path, `${operator} needs a string or number value`);
      }
      return s;
    }
  }
}

/** The conditions as one tree (ANDed); dates compared with range operators are read in `zone`. */
export function filterToNode(conditions: NormalizedCondition[], zone: Zone): QueryNode {
  return and(
    conditions.map((c, i) => {
      const node = conditionNode(c, zone, `filter/${i}/value`);
      return c.invert ? not(node) : node;
    }),
  );
}

function conditionNode(c: NormalizedCondition, zone: Zone, path: string): QueryNode {
  const predicate = (tests: ValueTest[]): QueryNode => ({ type: 'predicate', property: c.property, tests });
  const present = predicate([{ kind: 'present' }]);
  const equal = (v: FilterScalar): ValueTest[] =>
    typeof v === 'string'
      ? equalityTests(v, false, zone, path)
      : typeof v === 'number'
        ? [{ kind: 'number', conds: [{ op: '=', value: v }] }]
        : [{ kind: 'boolean', value: v }];
  switch (c.operator) {
    case 'exists':
      return c.value === true ? present : not(present);
    case 'eq':
      return c.value === null ? not(present) : predicate(equal(c.value as FilterScalar));
    case 'ne':
      return c.value === null ? present : not(predicate(equal(c.value as FilterScalar)));
    case 'in': {
      const values = c.value as FilterScalar[];
      return values.length === 0 ? NONE : predicate(values.flatMap(equal));
    }
    case 'like':
      return predicate([{ kind: 'like', pattern: toLikePattern(c.value as string, {}, path) }]);
    default: {
      const op = RANGE_OPS[c.operator]!;
      const v = c.value as string | number;
      return predicate(
        typeof v === 'number'
          ? [{ kind: 'number', conds: [{ op, value: v }] }]
          : rangeTests([{ op, text: v }], zone, path),
      );
    }
  }
}

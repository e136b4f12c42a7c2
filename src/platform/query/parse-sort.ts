// The `sort` parameter: `field|ASC,field|DESC` (or parsed instructions from the data management API).
import type { SortInstruction } from './query.types.js';
import { QUERY_LIMITS } from './limits.js';
import { QUERY_ERRORS } from './query.errors.js';
import { validateProperty } from './values.js';

/** Sorting on a property that no item has is no error: missing values sort last. */
export function parseSort(input: string | SortInstruction[] | undefined | null): SortInstruction[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return parseSortString(input);
  if (!Array.isArray(input)) throw QUERY_ERRORS.invalidSort('sort', 'sort must be a list of instructions');
  if (input.length > QUERY_LIMITS.sortFields) {
    throw QUERY_ERRORS.invalidSort('sort', `at most ${QUERY_LIMITS.sortFields} sort instructions`);
  }
  return input.map((raw, i) => {
    if (typeof raw !== 'object' || raw === null)
      throw QUERY_ERRORS.invalidSort(`sort/${i}`, 'an instruction must be an object');
    const r = raw as unknown as Record<string, unknown>;
    const direction = r.direction === undefined || r.direction === null ? 'ASC' : r.direction;
    if (typeof direction !== 'string')
      throw QUERY_ERRORS.invalidSort(`sort/${i}/direction`, 'direction must be ASC or DESC');
    return {
      property: validateProperty(r.property, `sort/${i}/property`),
      direction: parseDirection(direction, `sort/${i}/direction`),
    };
  });
}

function parseSortString(text: string): SortInstruction[] {
  if (text.length > QUERY_LIMITS.sortLength) {
    throw QUERY_ERRORS.invalidSort('sort', `sort is limited to ${QUERY_LIMITS.sortLength} characters`);
  }
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length > QUERY_LIMITS.sortFields) {
    throw QUERY_ERRORS.invalidSort('sort', `at most ${QUERY_LIMITS.sortFields} sort instructions`);
  }
  return items.map((item, i) => {
    const parts = item.split('|');
    if (parts.length > 2) throw QUERY_ERRORS.invalidSort(`sort/${i}`, 'expected field|ASC or field|DESC');
    return {
      property: validateProperty(parts[0].trim(), `sort/${i}/property`),
      direction: parseDirection(parts[1] ?? '', `sort/${i}/direction`),
    };
  });
}

function parseDirection(text: string, path: string): 'ASC' | 'DESC' {
  const d = text.trim().toUpperCase();
  if (d === '' || d === 'ASC') return 'ASC';
  if (d === 'DESC') return 'DESC';
  throw QUERY_ERRORS.invalidSort(path, `direction must be ASC or DESC, not ${text.slice(0, 16)}`);
}

// Values of attributes (decisions section 9's types), shared by action parameters and asset attributes, and the sort
// keys of strings for the asset query's sort modes.
import type { Attribute } from './templates/template.schema.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` (not null) is a value of the attribute's type (an enum: one of its values). */
export function fitsAttribute(d: Attribute, value: unknown): boolean {
  switch (d.type) {
    case 'string':
    case 'text':
      return typeof value === 'string';
    case 'integer':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
      return typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value));
    case 'dateTime':
      return typeof value === 'string' && /T/.test(value) && !Number.isNaN(Date.parse(value));
    case 'enum':
      return (d.values ?? []).some((x) => x === value);
    default: // json: any value
      return true;
  }
}

/** A required attribute counts as given when it is not missing, null or the empty string. */
export const isGiven = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

/** The sort modes of the asset query (interface-spec, Asset query `sortMode`). */
export type SortMode = '' | 'ci' | 'user' | 'user_ci';

/** Marks (accents) after NFKD: letters sort with their base letter in the `user` modes. */
const MARKS = /\p{M}+/gu;
/** Digit runs are compared as numbers in the `user` modes ("Zeta 9" before "Zeta 10"). */
const DIGITS = /\d+/g;

function humanKey(s: string): string {
  return s
    .normalize('NFKD')
    .replace(MARKS, '')
    .replace(DIGITS, (d) => {
      const n = d.replace(/^0+(?=\d)/, '');
      // Up to 30 digits are padded to compare as numbers; longer runs keep their text.
      return n.length <= 30 ? n.padStart(30, '0') : n;
    });
}

/**
 * The keys a string sorts by in the modes other than '' (code point order): `ci` lower case (Unicode) in code point
 * order; `user` accents folded and digit runs compared as numbers, case kept (upper case before lower case, as in
 * code points); `user_ci` that and case-insensitive.
 */
export function sortKeys(s: string): { ci: string; user: string; userCi: string } {
  const user = humanKey(s);
  return { ci: s.toLowerCase(), user, userCi: user.toLowerCase() };
}

// The text of an export, written page by page: JSON (an array of items as a list answers them) or CSV (fixed columns,
// the value's top-level fields of the first page as columns, and the whole value as JSON). Pure: no I/O here.
import { itemJson } from './item-json.js';
import type { ItemText } from './store-list-reads.js';

export type ExportFormat = 'json' | 'csv';

/** The columns of every CSV export, before the value's fields. */
const FIXED_COLUMNS = [
  'id',
  'moduleId',
  'moduleInstanceId',
  'name',
  'favorite',
  'createdOn',
  'createdBy',
  'updatedOn',
  'updatedBy',
  'readRestriction',
  'writeRestriction',
] as const;

/** The value's top-level fields that become columns: those of the first page's items, at most this many. */
export const MAX_VALUE_COLUMNS = 200;

/** Turns pages of items into chunks of the export's text. */
export async function* exportText(format: ExportFormat, pages: AsyncIterable<ItemText[]>): AsyncGenerator<string> {
  if (format === 'json') {
    let first = true;
    yield '[';
    for await (const page of pages) {
      if (page.length === 0) continue;
      yield (first ? '' : ',') + page.map(itemJson).join(',');
      first = false;
    }
    yield ']\n';
    return;
  }
  let columns: string[] | undefined;
  for await (const page of pages) {
    const items = page.map((text) => JSON.parse(itemJson(text)) as Record<string, unknown>);
    if (!columns) {
      columns = valueColumns(items);
      yield `${csvRow([...FIXED_COLUMNS, ...columns.map((c) => `value.${c}`), 'value'])}`;
    }
    yield items.map((item) => csvRow(csvCells(item, columns!))).join('');
  }
  if (!columns) yield csvRow([...FIXED_COLUMNS, 'value']);
}

function valueColumns(items: Array<Record<string, unknown>>): string[] {
  const seen = new Set<string>();
  for (const { value } of items) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    for (const key of Object.keys(value)) if (seen.size < MAX_VALUE_COLUMNS) seen.add(key);
  }
  return [...seen];
}

function csvCells(item: Record<string, unknown>, columns: string[]): string[] {
  const value = item.value;
  const fields = value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
  return [
    ...FIXED_COLUMNS.map((c) => cell(item[c])),
    ...columns.map((c) => cell(Object.hasOwn(fields, c) ? (fields as Record<string, unknown>)[c] : undefined)),
    JSON.stringify(value),
  ];
}

/**
 * A cell's text: null and absent as empty, numbers and booleans as JSON, objects and arrays as JSON. A string as it is,
 * but one that a spreadsheet would take for a formula (starting with =, +, -, @, tab or CR) gets a leading `'` (OWASP
 * CSV injection); the `value` column's JSON keeps every string unchanged.
 */
function cell(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') return JSON.stringify(v);
  return /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
}

/** One CSV record (RFC 4180, CRLF): a cell with a quote, comma or line break is quoted, quotes doubled. */
export function csvRow(cells: readonly string[]): string {
  return `${cells.map((c) => (/[",\r\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(',')}\r\n`;
}

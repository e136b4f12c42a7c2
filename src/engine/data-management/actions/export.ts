// The built-in action handler `export` (`{"type":"export","format":"csv"|"json","fileName":"..."}`): the selected
// assets as a file in `download` (base64, with a file name and a media type). Columns come from the call (`columns`,
// as a grid overview sends them) or default to the asset's fields and the template's visible attributes.
import { DM_ERRORS } from '../dm.errors.js';
import type { Attribute } from '../templates/template.schema.js';

export interface Download {
  fileName: string;
  mediaType: string;
  /** The file, base64. */
  data: string;
}

interface Column {
  property: string;
  header: string;
}

const BASE_COLUMNS = ['id', 'customId', 'displayName', 'description'];
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$/;

/**
 * The columns of an export. A column of the call is a property (`customId`, `attributes.dm:serial`, `version.updatedOn`)
 * or an object `{property | dataIndex, header | text}` as grids send them.
 */
export function exportColumns(given: unknown[] | undefined, attributes: Attribute[]): Column[] {
  if (!given || given.length === 0) {
    return [
      ...BASE_COLUMNS.map((p) => ({ property: p, header: p })),
      ...attributes
        .filter((a) => !a.hidden)
        .map((a) => ({ property: `attributes.${a.key}`, header: a.label ?? a.key })),
    ];
  }
  return given.map((c, i) => {
    const o =
      typeof c === 'string' ? { property: c } : c && typeof c === 'object' ? (c as Record<string, unknown>) : {};
    const property = o.property ?? o.dataIndex;
    if (typeof property !== 'string' || property.length === 0 || property.length > 1000) {
      throw DM_ERRORS.invalidCall(`columns/${i}: a column is a property name or {property, header}`);
    }
    const header = o.header ?? o.text ?? property;
    return { property, header: String(header).slice(0, 1000) };
  });
}

/** A member of the object itself (never one of its prototype's, such as `constructor`). */
const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);

/**
 * The value at a dotted property; the key after `attributes.` or `unversionedAttributes.` is taken whole (QNames hold
 * dots), and `attributes.<key>` also finds an unversioned attribute (as queries do).
 */
function valueAt(doc: Record<string, unknown>, property: string): unknown {
  const attributes = (doc.attributes ?? {}) as Record<string, unknown>;
  const unversioned = (doc.unversionedAttributes ?? {}) as Record<string, unknown>;
  if (property.startsWith('attributes.')) {
    const key = property.slice('attributes.'.length);
    return own(attributes, key) ?? own(unversioned, key);
  }
  if (property.startsWith('unversionedAttributes.'))
    return own(unversioned, property.slice('unversionedAttributes.'.length));
  let value: unknown = doc;
  for (const part of property.split('.'))
    value = value && typeof value === 'object' ? own(value as Record<string, unknown>, part) : undefined;
  return value;
}

/** A CSV field (RFC 4180); text that a spreadsheet would run as a formula is prefixed with a quote. */
function csvField(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The export file of the assets (their answers) for the handler's options. */
export function exportAssets(
  handler: Record<string, unknown>,
  assets: Array<Record<string, unknown>>,
  columns: Column[],
): Download {
  const format = handler.format ?? 'csv';
  if (format !== 'csv' && format !== 'json')
    throw DM_ERRORS.invalidCall(`the export handler's format is csv or json, not ${String(format).slice(0, 20)}`);
  const base =
    typeof handler.fileName === 'string' && FILE_NAME.test(handler.fileName)
      ? handler.fileName.replace(/\.(csv|json)$/i, '')
      : 'export';
  if (format === 'json') {
    const rows = assets.map((a) =>
      Object.fromEntries(columns.map((c) => [c.property, valueAt(a, c.property) ?? null])),
    );
    return {
      fileName: `${base}.json`,
      mediaType: 'application/json',
      data: Buffer.from(JSON.stringify(rows)).toString('base64'),
    };
  }
  const lines = [
    columns.map((c) => csvField(c.header)).join(','),
    ...assets.map((a) => columns.map((c) => csvField(valueAt(a, c.property))).join(',')),
  ];
  return {
    fileName: `${base}.csv`,
    mediaType: 'text/csv; charset=utf-8',
    data: Buffer.from(`${lines.join('\r\n')}\r\n`).toString('base64'),
  };
}

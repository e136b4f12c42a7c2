import { extendObject, jsonIsoDate } from '../../platform/http/json-text.js';

/**
 * The answer's JSON text: the stored document (the written fields with their defaults, `id` first) with the
 * server's date and version appended, spliced without parsing (docs/architecture.md, pre-serialised replies).
 */
export function notificationJson(row: { doc: string; date: number; version: number }): string {
  return extendObject(row.doc, [
    ['date', jsonIsoDate(row.date)],
    ['version', String(row.version)],
  ]);
}

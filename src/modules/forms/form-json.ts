import { jsonArray, jsonIsoDate, jsonObject, jsonString } from '../../platform/http/json-text.js';
import type { StoredForm } from './forms.tables.js';

// The read path splices the stored config text into the answer instead of parsing and re-serialising
// it: the config was produced by JSON.stringify on write, so it is valid JSON as it stands.

/** A stored version as the returned form of decisions.md section 6, as JSON text. */
export function formJson(row: StoredForm): string {
  return jsonObject([
    ['id', jsonString(row.form_id)],
    ['version', String(Number(row.version))],
    ['name', jsonString(row.name)],
    ['config', row.config],
    ['createdOn', jsonIsoDate(Number(row.created_on))],
    ['createdBy', jsonString(row.created_by)],
  ]);
}

export const formListJson = (rows: StoredForm[]): string => jsonArray(rows.map(formJson));

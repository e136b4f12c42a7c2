import type { FastifyReply } from 'fastify';
import type { StoredForm } from './forms.tables.js';

// The read path splices the stored config text into the answer instead of parsing and re-serialising
// it: the config was produced by JSON.stringify on write, so it is valid JSON as it stands.

/** A stored version as the returned form of decisions.md section 6, as JSON text. */
export function formJson(row: StoredForm): string {
  return (
    `{"id":${JSON.stringify(row.form_id)},"version":${Number(row.version)},"name":${JSON.stringify(row.name)},` +
    `"config":${row.config},"createdOn":"${new Date(Number(row.created_on)).toISOString()}","createdBy":${JSON.stringify(row.created_by)}}`
  );
}

export function formListJson(rows: StoredForm[]): string {
  return `[${rows.map(formJson).join(',')}]`;
}

/** Sends JSON text that is already serialised. */
export const sendJsonText = (reply: FastifyReply, text: string) => reply.type('application/json; charset=utf-8').send(text);

// Replies assembled from JSON text that is already serialised: a stored document spliced into the answer instead
// of parsed and serialised again, which is what makes the item and form reads fast (docs/architecture.md).
// Routes that answer this way send the text as it is (a string payload with a JSON content type is not serialised
// again), so their response schema only documents the answer: the tests of each user check the text against it.
import type { FastifyReply } from 'fastify';

/** A member of an object: its key and its value as JSON text. */
export type JsonMember = readonly [key: string, jsonText: string];

/** A string as JSON text. */
export const jsonString = (value: string): string => JSON.stringify(value);

/** Epoch milliseconds as an ISO 8601 UTC string, as JSON text. */
export const jsonIsoDate = (epochMs: number): string => `"${new Date(epochMs).toISOString()}"`;

/** An object from members in their order. */
export function jsonObject(members: readonly JsonMember[]): string {
  return `{${members.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
}

/** An array of values that are JSON text. */
export const jsonArray = (items: readonly string[]): string => `[${items.join(',')}]`;

/**
 * The object text with members appended after its own, which keep their order. `objectText` must be the JSON
 * text of an object (as JSON.stringify or PostgreSQL's jsonb produce it) that holds none of the added keys.
 */
export function extendObject(objectText: string, members: readonly JsonMember[]): string {
  const open = objectText.indexOf('{');
  const close = objectText.lastIndexOf('}');
  const inner = objectText.slice(open + 1, close);
  const added = members.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',');
  if (!added) return `{${inner}}`;
  return inner.trim() === '' ? `{${added}}` : `{${inner},${added}}`;
}

/** Sends JSON text as it is. */
export const sendJsonText = (reply: FastifyReply, text: string) => reply.type('application/json; charset=utf-8').send(text);

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

/**
 * The keys of the members of an object's JSON text, not those of the objects inside it: one pass over the characters
 * (strings skipped whole), several times cheaper than parsing the text for a glance at its keys.
 */
export function ownKeys(objectText: string): Set<string> {
  const keys = new Set<string>();
  let depth = 0;
  let keyNext = false;
  for (let i = 0; i < objectText.length; i++) {
    const c = objectText.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; i < objectText.length && objectText.charCodeAt(i) !== QUOTE; i++) {
        if (objectText.charCodeAt(i) === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      if (depth === 1 && keyNext) {
        const raw = objectText.slice(start, i + 1);
        keys.add(escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1));
        keyNext = false;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      keyNext = depth === 1 && c === OPEN_BRACE;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (c === COMMA && depth === 1) {
      keyNext = true;
    }
  }
  return keys;
}

const [QUOTE, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, COMMA] = ['"', '\\', '{', '}', '[', ']', ','].map((ch) => ch.charCodeAt(0));

/** Sends JSON text as it is. */
export const sendJsonText = (reply: FastifyReply, text: string) => reply.type('application/json; charset=utf-8').send(text);

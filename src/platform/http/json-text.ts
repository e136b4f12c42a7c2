// Replies assembled from JSON text that is already serialised: a stored document spliced into the answer instead
// of parsed and serialised again, which is what makes the item and form reads fast (docs/architecture.md).
// Routes that answer this way send the text as it is (a string payload with a JSON content type is not serialised
// again), so their response schema only documents the answer: the tests of each user check the text against it.
import type { FastifyReply } from 'fastify';

/** A member of an object: its key and its value as JSON text. */
export type JsonMember = readonly [key: string, jsonText: string];

/** A string as JSON text. */
export const jsonString = (value: string): string => JSON.stringify(value);

/** The last millisecond of the year 9999: beyond it (and before 1970) toISOString's own form is used. */
const MAX_PLAIN_MS = 253_402_300_799_999;

/**
 * ISO 8601 UTC strings of epoch milliseconds, each the text of its second (`2026-11-28T08:40:12.`, kept in a slot
 * of a small direct-mapped cache) and of its millisecond (`345Z`, from a table): a page of 100 items names 200 dates,
 * mostly of a few seconds, and building each from its numbers took about 235 bytes of short-lived strings a date, a
 * tenth of what a list allocated (docs/benchmarks.md). `quote` goes around the string (JSON text) or not.
 */
function isoDates(quote: string): (epochMs: number) => string {
  const millis = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z${quote}`);
  const keys = new Float64Array(SECOND_SLOTS).fill(-1);
  const texts: string[] = new Array(SECOND_SLOTS).fill('');
  return (epochMs) => {
    if (!(epochMs >= 0 && epochMs <= MAX_PLAIN_MS) || !Number.isInteger(epochMs))
      return `${quote}${new Date(epochMs).toISOString()}${quote}`;
    const seconds = Math.floor(epochMs / 1000);
    const slot = seconds % SECOND_SLOTS;
    if (keys[slot] !== seconds) {
      texts[slot] = `${quote}${secondText(seconds)}`;
      keys[slot] = seconds;
    }
    return texts[slot] + millis[epochMs - seconds * 1000];
  };
}

/** Slots of the seconds' cache of isoDates (a second's slot is its number modulo this). */
const SECOND_SLOTS = 1024;

/**
 * What `new Date(epochMs).toISOString()` answers, computed from the number (no Date object: the Date round trip was a
 * sixth of answering a page's dates). Outside 1970-9999 (and for fractions or non-numbers) toISOString itself answers.
 */
export const isoDate: (epochMs: number) => string = isoDates('');

/** Epoch milliseconds as an ISO 8601 UTC string, as JSON text. */
export const jsonIsoDate: (epochMs: number) => string = isoDates('"');

/**
 * The date and time of a second since 1970 to the second, as toISOString writes them, with the point before the
 * milliseconds: days to a civil date as in H. Hinnant's `civil_from_days`.
 */
function secondText(epochSeconds: number): string {
  const days = Math.floor(epochSeconds / 86_400);
  let s = epochSeconds - days * 86_400;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(s / 3600);
  s -= hours * 3600;
  const minutes = Math.floor(s / 60);
  s -= minutes * 60;
  return `${year}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(s)}.`;
}

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

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
  let added = '';
  for (const [key, value] of members) added += `,${JSON.stringify(key)}:${value}`;
  return appendMembers(objectText, added);
}

/**
 * The object text with members appended after its own; `membersText` is their JSON text, each preceded by a comma
 * (`,"a":1,"b":2`), or empty. `objectText` as for extendObject.
 */
export function appendMembers(objectText: string, membersText: string): string {
  const close = objectText.lastIndexOf('}');
  if (membersText === '') return objectText.slice(objectText.indexOf('{'), close + 1);
  // The usual text (JSON.stringify, jsonb) starts with the brace; whether the object has members of its own is
  // whether anything but blanks lies between the braces.
  const open = objectText.charCodeAt(0) === OPEN_BRACE ? 0 : objectText.indexOf('{');
  let i = open + 1;
  while (i < close && isBlank(objectText.charCodeAt(i))) i++;
  if (i === close) return `{${membersText.slice(1)}}`;
  return `${objectText.slice(open, close)}${membersText}}`;
}

const isBlank = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * A reader of which of `names` are keys of an object's own members, as bits (1 << index in names), without a parse.
 * First the members at the object's head whose values are strings are read exactly (a stored item's id and its
 * optional fields come first: buildDocument); a name not among them that occurs nowhere after them is absent (one
 * `indexOf`). Only where one does occur further on is the text scanned token by token, and only as far as a name still
 * unaccounted for occurs (100 items of the search benchmark: 70 -> 30 us, the head alone read). Keys are found as
 * JSON.stringify and jsonb write them (no escaped letters).
 */
export function rootKeyScanner(names: readonly string[]): (objectText: string) => number {
  // Each key as written, less its opening quote: `indexOf` of a pattern that starts with a quote is several times slower
  // in JSON text (a quote every few characters); a place found so is a candidate, which the scan checks.
  const quoted = names.map((name) => JSON.stringify(name).slice(1));
  const scan = scanAll(names, quoted);
  return (text) => {
    // The head: members whose values are strings, read with indexOf (no string before the first backslash escapes).
    const firstBackslash = text.indexOf('\\');
    const plainBefore = firstBackslash < 0 ? text.length : firstBackslash;
    let i = skipBlanks(text, 0);
    if (text.charCodeAt(i) !== OPEN_BRACE) return scan(text);
    let found = 0;
    for (;;) {
      i = skipBlanks(text, i + 1);
      const c = text.charCodeAt(i);
      if (c === CLOSE_BRACE) return found;
      if (c !== QUOTE) return scan(text);
      const keyEnd = text.indexOf('"', i + 1);
      if (keyEnd < 0 || keyEnd > plainBefore) return scan(text);
      const colon = skipBlanks(text, keyEnd + 1);
      if (text.charCodeAt(colon) !== COLON) return scan(text);
      const value = skipBlanks(text, colon + 1);
      // A value that is no string ends the head; a name not found in it counts where it occurs after it.
      if (text.charCodeAt(value) !== QUOTE) break;
      for (let k = 0; k < names.length; k++) {
        if (keyEnd - i - 1 === names[k].length && text.startsWith(names[k], i + 1)) found |= 1 << k;
      }
      const valueEnd = text.indexOf('"', value + 1);
      if (valueEnd < 0 || valueEnd > plainBefore) return scan(text);
      i = skipBlanks(text, valueEnd + 1);
      const next = text.charCodeAt(i);
      if (next === CLOSE_BRACE) return found;
      if (next !== COMMA) return scan(text);
    }
    for (let k = 0; k < quoted.length; k++) {
      if (!(found & (1 << k)) && text.indexOf(quoted[k], i) >= 0) return scan(text);
    }
    return found;
  };
}

function skipBlanks(text: string, from: number): number {
  let i = from;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  return i;
}

/** The token scan of rootKeyScanner, over the whole text as far as a name still unaccounted for occurs. */
function scanAll(names: readonly string[], quoted: readonly string[]): (objectText: string) => number {
  return (objectText) => {
    let found = 0;
    // Names found, or occurring nowhere further on; and where each name occurs next.
    let settled = 0;
    const next = quoted.map((q) => objectText.indexOf(q));
    // The farthest place an unsettled name occurs next, from `from` on; -1 when none does.
    const reach = (from: number) => {
      let end = -1;
      for (let k = 0; k < quoted.length; k++) {
        if (settled & (1 << k)) continue;
        if (next[k] >= 0 && next[k] < from) next[k] = objectText.indexOf(quoted[k], from);
        if (next[k] < 0) settled |= 1 << k;
        else end = Math.max(end, next[k]);
      }
      return end;
    };
    let end = reach(0);
    let depth = 0;
    let keyNext = false;
    for (let i = 0; i < objectText.length; i++) {
      if (i > end && (end = reach(i)) < 0) break;
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
          const raw = objectText.slice(start + 1, i);
          const index = names.indexOf(escaped ? (JSON.parse(`"${raw}"`) as string) : raw);
          if (index >= 0) {
            found |= 1 << index;
            settled |= 1 << index;
          }
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
    return found;
  };
}

const [QUOTE, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, COMMA, COLON] = [
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
].map((ch) => ch.charCodeAt(0));

/** Sends JSON text as it is. */
export const sendJsonText = (reply: FastifyReply, text: string) =>
  reply.type('application/json; charset=utf-8').send(text);

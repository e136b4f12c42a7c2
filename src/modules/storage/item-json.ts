// The item read answers the stored document text spliced with the fields the service adds, instead of parsing it
// and serialising it again: the document was produced by JSON.stringify on write and is kept as that text (on
// PostgreSQL since storage-014; documents not written since hold jsonb's text form of it), so it is valid JSON as it
// stands, and it holds only the written fields of the item schema.
import { appendMembers, jsonIsoDate, jsonString, rootKeyScanner } from '../../platform/http/json-text.js';
import type { ItemText } from './store-item-lists.repository.js';
import type { ItemDocument } from './item-document.js';

/** Optional root fields of a document: the answer names them all, null when absent (as toStoreItem does). */
const OPTIONAL_FIELDS = ['moduleId', 'moduleInstanceId', 'name'] as const;

/** Which optional fields a document has, as bits (1 << index in OPTIONAL_FIELDS). */
const optionalPresent = rootKeyScanner(OPTIONAL_FIELDS);

/** The members naming the absent optional fields as null, by the bits of the present ones. */
const ABSENT_AS_NULL = Array.from({ length: 1 << OPTIONAL_FIELDS.length }, (_, present) =>
  OPTIONAL_FIELDS.filter((_, i) => !(present & (1 << i)))
    .map((field) => `,"${field}":null`)
    .join(''),
);

/** The members a read adds to a document whose optional fields `present` names (bits of OPTIONAL_FIELDS). */
function addedMembers(present: number, item: Omit<ItemText, 'docText'>): string {
  const created = jsonIsoDate(item.createdOn);
  const updated = item.updatedOn === item.createdOn ? created : jsonIsoDate(item.updatedOn);
  return `${ABSENT_AS_NULL[present]},"createdOn":${created},"createdBy":${jsonString(item.createdBy)},"updatedOn":${updated},"updatedBy":${jsonString(item.updatedBy)}`;
}

/**
 * The item as read (StoreItemSchema), as JSON text, `id` first: the document starts with it (buildDocument writes
 * it first; jsonb orders keys by length, and `id` is the shortest). A page of 100 items is 100 of these: the text is
 * built by concatenation, and the optional fields' presence read without a parse (11% of a list's time had gone to
 * parsing every document of the page).
 */
export function itemJson(item: ItemText): string {
  return appendMembers(item.docText, addedMembers(optionalPresent(item.docText), item));
}

/**
 * What follows the members of a new item's document text (JSON.stringify's, without its closing brace) to make the
 * item as a read answers it (itemJson), closing brace included: `doc` created at `now` by `by`.
 */
export function createdItemTail(doc: ItemDocument, now: number, by: string): string {
  let present = 0;
  for (let i = 0; i < OPTIONAL_FIELDS.length; i++) if (doc[OPTIONAL_FIELDS[i]] !== undefined) present |= 1 << i;
  return `${addedMembers(present, { createdOn: now, createdBy: by, updatedOn: now, updatedBy: by })}}`;
}

// The item read answers the stored document text spliced with the fields the service adds, instead of parsing it
// and serialising it again: the document was produced by JSON.stringify on write (PostgreSQL hands back jsonb's
// text form of it), so it is valid JSON as it stands, and it holds only the written fields of the item schema.
import { extendObject, jsonIsoDate, jsonString, ownKeys, type JsonMember } from '../../platform/http/json-text.js';
import type { ItemText } from './store-item.repository.js';

/** Optional root fields of a document: the answer names them all, null when absent (as toStoreItem does). */
const OPTIONAL_FIELDS = ['moduleId', 'moduleInstanceId', 'name'] as const;

/**
 * The item as read (StoreItemSchema), as JSON text, `id` first: the document starts with it (buildDocument writes
 * it first; jsonb orders keys by length, and `id` is the shortest).
 */
export function itemJson(item: ItemText): string {
  const text = item.docText;
  const members: JsonMember[] = [];
  let keys: Set<string> | undefined;
  for (const field of OPTIONAL_FIELDS) {
    // A name that occurs nowhere in the text is not a root field; one that does may sit deeper, so then look at the
    // root's keys (a scan, not a parse: 11% of a list's time went to parsing every document of the page).
    if (text.includes(`"${field}"`)) {
      keys ??= ownKeys(text);
      if (keys.has(field)) continue;
    }
    members.push([field, 'null']);
  }
  members.push(
    ['createdOn', jsonIsoDate(item.createdOn)],
    ['createdBy', jsonString(item.createdBy)],
    ['updatedOn', jsonIsoDate(item.updatedOn)],
    ['updatedBy', jsonString(item.updatedBy)],
  );
  return extendObject(text, members);
}

// The item read answers the stored document text spliced with the fields the service adds, instead of parsing it
// and serialising it again: the document was produced by JSON.stringify on write (PostgreSQL hands back jsonb's
// text form of it), so it is valid JSON as it stands, and it holds only the written fields of the item schema.
import type { ItemText } from './store-item.repository.js';

/** Optional root fields of a document: the answer names them all, null when absent (as toStoreItem does). */
const OPTIONAL_FIELDS = ['moduleId', 'moduleInstanceId', 'name'] as const;

/** The item as read (StoreItemSchema), as JSON text. */
export function itemJson(item: ItemText): string {
  const text = item.docText;
  let nulls = '';
  let parsed: Record<string, unknown> | undefined;
  for (const field of OPTIONAL_FIELDS) {
    // A name that occurs nowhere in the text is not a root field; one that does may sit deeper, so then parse.
    if (text.includes(`"${field}"`)) {
      parsed ??= JSON.parse(text) as Record<string, unknown>;
      if (Object.prototype.hasOwnProperty.call(parsed, field)) continue;
    }
    nulls += `"${field}":null,`;
  }
  const fields = text.slice(text.indexOf('{') + 1, text.lastIndexOf('}'));
  return (
    `{${nulls}${fields},"createdOn":"${new Date(item.createdOn).toISOString()}","createdBy":${JSON.stringify(item.createdBy)},` +
    `"updatedOn":"${new Date(item.updatedOn).toISOString()}","updatedBy":${JSON.stringify(item.updatedBy)}}`
  );
}

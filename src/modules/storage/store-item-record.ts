// An item row as the repository reads it, and as a read answers it.
import type { ItemDocument } from './item-document.js';
import type { StoreItem } from './storage.schemas.js';

/** An item row with its document decoded. */
export interface ItemRecord {
  seq: number;
  doc: ItemDocument;
  createdOn: number;
  createdBy: string;
  updatedOn: number;
  updatedBy: string;
}

/** The item as read: the written fields (absent optional ones as null) plus who changed it when. */
export function toStoreItem(r: ItemRecord): StoreItem {
  const d: ItemDocument = r.doc;
  return {
    id: d.id,
    moduleId: d.moduleId ?? null,
    moduleInstanceId: d.moduleInstanceId ?? null,
    name: d.name ?? null,
    value: d.value,
    favorite: d.favorite,
    readRestriction: d.readRestriction,
    writeRestriction: d.writeRestriction,
    customFields: d.customFields,
    createdOn: new Date(r.createdOn).toISOString(),
    createdBy: r.createdBy,
    updatedOn: new Date(r.updatedOn).toISOString(),
    updatedBy: r.updatedBy,
  };
}

// What a write of store items tells the change feed: one event per write transaction and store (a batch of creates is
// one), on the store's own topic, carrying for each item its new state and who may read it after and before the
// change, so that a live stream decides "readable before" and "readable after" without a statement (live/).
import type { PublishedEvent } from '../../platform/events/index.js';
import { restrictionGrantees, type ItemDocument } from './item-document.js';
import type { StoreItem } from './storage.schemas.js';

/** The change feed topic of one store's items (per store: a resuming stream reads back only its store's events). */
export const storeTopic = (storeId: string): string => `storage:${storeId}`;

export type StoreChangeAction = 'created' | 'updated' | 'deleted';

/** One item's change as the feed carries it. */
export interface StoreItemChange {
  action: StoreChangeAction;
  itemId: string;
  /** The item as read after the change; absent for `deleted`. */
  item?: StoreItem;
  /** The grantees (`role:x`, `user:y`, ...) that may read the item after the change; absent for `deleted`. */
  readers?: string[];
  /** The grantees that could read it before (updates and deletes). */
  readersBefore?: string[];
}

export interface StoreEventPayload {
  storeId: string;
  changes: StoreItemChange[];
}

export const readersOf = (doc: ItemDocument): string[] => restrictionGrantees(doc.readRestriction);

/** The feed event of a store's changes in one transaction. */
export function storeEvent(tenantId: string, storeId: string, changes: StoreItemChange[]): PublishedEvent {
  const payload: StoreEventPayload = { storeId, changes };
  return { tenantId, topic: storeTopic(storeId), payload };
}

/**
 * The JSON text of a store event's payload around its changes (`head`, the changes' JSON joined by commas, `tail`):
 * what JSON.stringify makes of storeEvent's payload, for a statement that joins the changes of the rows it wrote
 * (StorageSql.createItems).
 */
export function storeEventText(storeId: string): { head: string; tail: string } {
  const payload: StoreEventPayload = { storeId, changes: [] };
  const text = JSON.stringify(payload);
  return { head: text.slice(0, -2), tail: text.slice(-2) };
}

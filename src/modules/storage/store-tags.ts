// The entity tags of item reads and lists (conditional GETs, platform/http/entity-tag.ts): the store's change count
// (storage_store_changes, kept by triggers in every write's transaction: storage-008), who the caller is as far as
// reading goes, and the normalised request. Nothing here reads an item.
import type { Principal } from '../../platform/auth/principal.js';
import { changeCountReader } from '../../platform/db/change-counts.js';
import type { DataAccess } from '../../platform/db/data-access.js';
import type { Dialect } from '../../platform/db/dialects/dialect.js';
import { entityTag } from '../../platform/http/entity-tag.js';
import { principalGrantees } from './item-document.js';
import { MAX_LIMIT, type ListQuery } from './storage.schemas.js';

export class StoreTags {
  private readonly changes: (key: readonly string[]) => Promise<string>;

  constructor(data: DataAccess, dialect: Dialect) {
    this.changes = changeCountReader(data, dialect, 'storage_store_changes', ['tenant_id', 'store_id']);
  }

  /** The tag of an item read by this caller (the same for its 403 and 404, which carry none). */
  async item(p: Principal, storeId: string, itemId: string): Promise<string> {
    const changes = await this.changes([p.tenantId, storeId]);
    return entityTag(['item', p.tenantId, storeId, changes, readerKey(p), itemId]);
  }

  /** The store's change count, read now (one statement for the reads of a turn). */
  storeChanges(p: Principal, storeId: string): Promise<string> {
    return this.changes([p.tenantId, storeId]);
  }

  /**
   * The tag of a list (its `listKey`) at the store's change count `changes` (read before the list's rows, or by the
   * same statement).
   */
  listTagOf(p: Principal, storeId: string, key: string, changes: string): string {
    return entityTag(['list', p.tenantId, storeId, changes, key]);
  }

  /**
   * What a list's answer depends on besides the store's items: the caller's reader key and the parameters as validated
   * (defaults in, unknown ones out, limit cut). Two requests of one key answer the same at the same change count.
   */
  listKey(p: Principal, q: ListQuery): string {
    const request = JSON.stringify([
      q.start,
      Math.min(q.limit, MAX_LIMIT),
      q.query ?? null,
      q.filter ?? null,
      q.sort ?? null,
      q.timezoneName ?? null,
      q.timezoneOffset ?? null,
    ]);
    return `${readerKey(p)}\u0000${request}`;
  }
}

/**
 * What decides which items the caller may read: its grantees (user, active organisations, roles, rights), sorted. Two
 * callers with the same grantees read the same; a caller whose roles change gets other tags.
 */
function readerKey(p: Principal): string {
  return JSON.stringify(principalGrantees(p).sort());
}

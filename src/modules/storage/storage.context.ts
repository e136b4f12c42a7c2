import type { StorageService } from './storage.service.js';
import type { StoreStreams } from './live/store-streams.js';
import type { StoreTags } from './store-tags.js';

/** What the storage routes need; built once in the module's index. */
export interface StorageContext {
  service: StorageService;
  /** The entity tags of item reads and lists (conditional GETs). */
  tags: StoreTags;
  /** The live store streams. */
  streams: StoreStreams;
  /** `/cxf/svc-core/storage/store` */
  prefix: string;
  /** Items an export reads per statement. */
  exportPageSize: number;
  /** Body limit of the item writes, in bytes. */
  bodyLimit: number;
}

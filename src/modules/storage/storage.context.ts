import type { StorageService } from './storage.service.js';
import type { StoreStreams } from './live/store-streams.js';

/** What the storage routes need; built once in the module's index. */
export interface StorageContext {
  service: StorageService;
  /** The live store streams. */
  streams: StoreStreams;
  /** `/cxf/svc-core/storage/store` */
  prefix: string;
  /** Body limit of the item writes, in bytes. */
  bodyLimit: number;
}

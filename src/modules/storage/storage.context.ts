import type { StorageService } from './storage.service.js';

/** What the storage routes need; built once in the module's index. */
export interface StorageContext {
  service: StorageService;
  /** `/cxf/svc-core/storage/store` */
  prefix: string;
  /** Body limit of the item writes, in bytes. */
  bodyLimit: number;
}

import type { StorageService } from '../storage.service.js';

/** What every storage route needs. */
export interface StorageRouteOptions {
  service: StorageService;
  /** `/cxf/svc-core/storage/store` */
  prefix: string;
  /** Body limit of the item writes, in bytes. */
  bodyLimit: number;
}

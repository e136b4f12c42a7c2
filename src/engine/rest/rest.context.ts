import type { SharedItemsService } from './shared-items.service.js';

/** What the route files of the REST interface need. */
export interface RestContext {
  items: SharedItemsService;
}

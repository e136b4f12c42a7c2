import type { NotificationsService } from './notifications.service.js';
import type { MaintenanceSwitch } from './maintenance.js';
import type { NotificationStreams } from './live/notification-streams.js';
import type { NotificationTags } from './notification-tags.js';

/** What the route files of the module need. */
export interface NotificationsContext {
  notifications: NotificationsService;
  maintenance: MaintenanceSwitch;
  streams: NotificationStreams;
  /** The entity tags of the list and reads (conditional GETs). */
  tags: NotificationTags;
}

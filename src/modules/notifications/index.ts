// Notifications: messages to users, roles and organisations of a tenant, and their live delivery (SSE).
// It owns the notifications, notification_recipients and notification_settings tables, and publishes on the change feed.
import type { ChangeFeed } from '../../platform/events/index.js';
import { defineModule, type ModuleDeps } from '../../platform/module.js';
import type { Telemetry } from '../../platform/metrics/index.js';
import type { NotificationsTables } from './notifications.tables.js';
import { NotificationsRepository } from './notifications.repository.js';
import { NotificationsService } from './notifications.service.js';
import { MaintenanceSwitch } from './maintenance.js';
import { FeedCache } from '../../platform/events/index.js';
import { NOTIFICATION_TOPIC } from './notification-topic.js';
import { NotificationStreams } from './live/notification-streams.js';
import type { NotificationsContext } from './notifications.context.js';
import { addNotificationRoute } from './routes/add-notification.js';
import { updateNotificationRoute } from './routes/update-notification.js';
import { deleteNotificationRoute } from './routes/delete-notification.js';
import { getNotificationRoute } from './routes/get-notification.js';
import { listNotificationsRoute } from './routes/list-notifications.js';
import { streamNotificationsRoute } from './routes/stream-notifications.js';
import { maintenanceRoutes } from './routes/maintenance.js';
import { notificationsMigrations } from './notifications.migrations.js';
import { NotificationTags } from './notification-tags.js';

export interface NotificationsConfig {
  /** Every tenant's notification endpoints start in maintenance mode (503) until an ADMIN switches it off. */
  maintenance: boolean;
  heartbeatSeconds: number;
  retryMs: number;
  maxQueuedBytes: number;
  /** How long a list answer may be reused while no notification of the tenant changes (0: never). */
  listCacheSeconds: number;
}

/** `telemetry`: counts the open live streams (metrics, stream `notifications`). */
export type NotificationsDeps = ModuleDeps<NotificationsTables, NotificationsConfig> & {
  feed: ChangeFeed;
  telemetry?: Telemetry;
};

/** The notifications module: its routes and live streams, the maintenance switch and the list cache. */
export const notificationsModule = defineModule({
  name: 'notifications',
  migrations: notificationsMigrations,
  create(deps: NotificationsDeps) {
    const repo = new NotificationsRepository(deps.data, deps.dialect);
    const streams = new NotificationStreams(
      deps.feed,
      {
        heartbeatMs: deps.config.heartbeatSeconds * 1000,
        retryMs: deps.config.retryMs,
        maxQueuedBytes: deps.config.maxQueuedBytes,
      },
      deps.log,
      deps.telemetry,
    );
    const maintenance = new MaintenanceSwitch(
      deps.data.db,
      repo,
      deps.feed,
      deps.config.maintenance,
      deps.log,
      (tenantId) => streams.endTenant(tenantId),
    );
    const lists = new FeedCache(deps.feed, NOTIFICATION_TOPIC, deps.config.listCacheSeconds * 1000);
    const tags = new NotificationTags(deps.data, deps.dialect);
    const ctx: NotificationsContext = {
      notifications: new NotificationsService(deps.data.db, repo, deps.feed, deps.dialect, lists, tags),
      maintenance,
      streams,
      tags,
    };
    return {
      prefix: '/cxf/svc-core',
      async plugin(app) {
        // Open streams would keep the server from closing: they end first.
        app.addHook('preClose', async () => streams.endAll());
        streamNotificationsRoute(app, ctx);
        listNotificationsRoute(app, ctx);
        addNotificationRoute(app, ctx);
        getNotificationRoute(app, ctx);
        updateNotificationRoute(app, ctx);
        deleteNotificationRoute(app, ctx);
        maintenanceRoutes(app, ctx);
      },
      async start() {
        lists.start();
        await maintenance.start();
        streams.start();
      },
      // A shutdown ends the streams with its final event: clients reconnect to another instance and resume.
      drain(event) {
        streams.endAll(event);
      },
      close() {
        lists.close();
        streams.close();
        maintenance.close();
      },
    };
  },
});

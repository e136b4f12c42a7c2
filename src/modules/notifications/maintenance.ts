import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { ChangeFeed } from '../../platform/events/index.js';
import type { NotificationsRepository } from './notifications.repository.js';
import type { NotificationsTables } from './notifications.tables.js';

export const MAINTENANCE_TOPIC = 'notification.maintenance';

/**
 * The maintenance switch of each tenant's notifications: the config's `maintenance` until an ADMIN switches it at
 * run time. The switch is stored and published on the change feed, so every instance follows at once; each keeps the
 * state in memory, because every notification request reads it.
 */
export class MaintenanceSwitch {
  private switches = new Map<string, boolean>();
  private readonly stops: Array<() => void> = [];

  constructor(
    private readonly db: Kysely<NotificationsTables>,
    private readonly repo: NotificationsRepository,
    private readonly feed: ChangeFeed,
    private readonly configured: boolean,
    private readonly log: FastifyBaseLogger,
    private readonly onActivated: (tenantId: string) => void,
  ) {
    // Rare and must hold on every instance before the ADMIN's answer: each instance records its delivery.
    feed.acknowledge(MAINTENANCE_TOPIC);
  }

  isActive(tenantId: string): boolean {
    return this.switches.get(tenantId) ?? this.configured;
  }

  async set(tenantId: string, active: boolean): Promise<void> {
    const event = await this.feed.transaction(this.db, async (trx, publish) => {
      await this.repo.setMaintenance(trx, tenantId, active);
      return publish({ tenantId, topic: MAINTENANCE_TOPIC, payload: { active } });
    });
    this.apply(tenantId, active);
    // Answered once every live instance has applied it: waiting for this instance alone let a request on another one,
    // sent right after the answer, still pass (seen in the cluster test under load).
    await this.feed.deliveredEverywhere(event, 2_000);
  }

  async start(): Promise<void> {
    this.stops.push(
      this.feed.subscribe(MAINTENANCE_TOPIC, (e) =>
        this.apply(e.tenantId, (e.payload as { active: boolean }).active === true),
      ),
      this.feed.onResync(
        () =>
          void this.reload().catch((err) =>
            this.log.warn({ err }, 'notifications: reloading maintenance switches failed'),
          ),
      ),
    );
    await this.reload();
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private async reload(): Promise<void> {
    const loaded = await this.repo.maintenanceSwitches();
    for (const [tenantId, active] of loaded) this.apply(tenantId, active);
  }

  private apply(tenantId: string, active: boolean): void {
    const was = this.isActive(tenantId);
    this.switches.set(tenantId, active);
    if (active && !was) this.onActivated(tenantId);
  }
}

import type { FastifyBaseLogger } from 'fastify';
import type { AuditEntry, AuditFilter, AuditRepository } from './audit.repository.js';

const KEY_USE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Who did what, when and from where: logins, failures, logouts, token minting and API-key use.
 * A failing audit write is logged and never fails the request it describes.
 */
export class AuditService {
  /**
   * API-key use is recorded once per key and address per interval, not on every request: when each was last
   * recorded, by tenant, key name and address. Nested maps of the caller's own strings, so that the check on every
   * request builds no string (a joined key cost a concatenation, its flattening and its hash on every call).
   */
  private readonly recentKeyUse = new Map<string, Map<string, Map<string, number>>>();
  /** Addresses in recentKeyUse, all keys counted. */
  private recentKeyUses = 0;

  constructor(
    private readonly repo: AuditRepository,
    private readonly log: FastifyBaseLogger,
  ) {}

  async record(entry: AuditEntry): Promise<void> {
    try {
      await this.repo.insert(entry);
    } catch (err) {
      this.log.warn({ err, action: entry.action }, 'audit write failed');
    }
  }

  /**
   * A record that stands for many events of one kind (`id` names the kind and its period): the first call writes it,
   * later ones replace its detail (a count), so a flood of events is one row.
   */
  async recordCounted(id: string, entry: AuditEntry): Promise<void> {
    try {
      await this.repo.upsertDetail(id, entry);
    } catch (err) {
      this.log.warn({ err, action: entry.action }, 'audit write failed');
    }
  }

  /**
   * `entry` is made only when the use is recorded: the check runs on every API-key request, and most are within
   * the interval of the key's last record. `tenantKey` and `keyName` name the key ('' and a word for a key nobody
   * holds).
   */
  recordKeyUse(
    tenantKey: string,
    keyName: string,
    remoteAddress: string,
    entry: () => AuditEntry,
    now = Date.now(),
  ): void {
    const last = this.recentKeyUse.get(tenantKey)?.get(keyName)?.get(remoteAddress);
    if (last !== undefined && now - last < KEY_USE_INTERVAL_MS) return;
    this.markKeyUse(tenantKey, keyName, remoteAddress, now);
    void this.record(entry());
  }

  private markKeyUse(tenantKey: string, keyName: string, remoteAddress: string, now: number): void {
    if (this.recentKeyUses >= 10_000) {
      this.recentKeyUse.clear();
      this.recentKeyUses = 0;
    }
    let byName = this.recentKeyUse.get(tenantKey);
    if (!byName) {
      byName = new Map();
      this.recentKeyUse.set(tenantKey, byName);
    }
    let byAddress = byName.get(keyName);
    if (!byAddress) {
      byAddress = new Map();
      byName.set(keyName, byAddress);
    }
    if (!byAddress.has(remoteAddress)) this.recentKeyUses++;
    byAddress.set(remoteAddress, now);
  }

  /** Applies the retention: records older than `retentionDays` go (0 keeps everything). */
  async purge(retentionDays: number, now = Date.now()): Promise<number> {
    if (retentionDays <= 0) return 0;
    return this.repo.deleteOlderThan(now - retentionDays * 86_400_000);
  }

  list(tenantId: string, start: number, limit: number, filter: AuditFilter = {}) {
    return this.repo.list(tenantId, start, limit, filter);
  }
}

import { Pool } from 'undici';

export interface FlowInstanceConfig {
  id: string;
  url: string;
  auth: { type: 'none' } | { type: 'basic'; username: string; password: string } | { type: 'bearer'; token: string };
  timeoutSeconds: number;
}

export interface FlowInstance {
  id: string;
  base: URL;
  /** The Authorization header the instance wants from us, if any. */
  authorization?: string;
  timeoutMs: number;
  timeoutSeconds: number;
  pool: Pool;
}

/** Keep-alive connection pools, one per configured instance: opened in the module's start, closed in its close. */
export class FlowInstances {
  private readonly byId = new Map<string, FlowInstance>();

  constructor(
    private readonly configs: FlowInstanceConfig[],
    private readonly connectionsPerInstance: number,
  ) {}

  get(id: string): FlowInstance | undefined {
    return this.byId.get(id);
  }

  /** Every started instance, in the config's order. */
  all(): FlowInstance[] {
    return [...this.byId.values()];
  }

  start(): void {
    for (const c of this.configs) {
      const base = new URL(c.url);
      const timeoutMs = c.timeoutSeconds * 1000;
      this.byId.set(c.id, {
        id: c.id,
        base,
        authorization:
          c.auth.type === 'basic'
            ? `Basic ${Buffer.from(`${c.auth.username}:${c.auth.password}`).toString('base64')}`
            : c.auth.type === 'bearer'
              ? `Bearer ${c.auth.token}`
              : undefined,
        timeoutMs,
        timeoutSeconds: c.timeoutSeconds,
        // Time to the response's headers and between body chunks; the request itself may stream as long as it lasts.
        pool: new Pool(base.origin, {
          connections: this.connectionsPerInstance,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          keepAliveTimeout: 10_000,
        }),
      });
    }
  }

  async close(): Promise<void> {
    const pools = [...this.byId.values()].map((i) => i.pool);
    this.byId.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }
}

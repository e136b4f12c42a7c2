// Flow: a streaming reverse proxy from /cxf/svc-flow/flow/{instanceId}{targetPath} to the configured instances
// (decisions.md section 8), and their reachability and last errors. No tables; one keep-alive pool per instance.
import type { AuditTrail } from '../../platform/audit/audit-trail.js';
import { defineModule, type ModuleDeps } from '../../platform/module.js';
import type { Telemetry } from '../../platform/metrics/index.js';
import { FlowInstances, type FlowInstanceConfig } from './flow-instances.js';
import { FlowProxy, type AuditLevel } from './flow-proxy.js';
import { FlowHealth } from './flow-health.js';
import { getInstancesRoute } from './routes/get-instances.js';
import { proxyRoutes } from './routes/proxy-routes.js';
import { OwnCookies } from './upstream-cookies.js';

export interface FlowConfig {
  instances: FlowInstanceConfig[];
  /** Keep-alive connections per instance. */
  connectionsPerInstance: number;
  /** Which proxied calls the audit log records: none (default), failed ones, or all. */
  audit: AuditLevel;
}

/** `ownCookies`: the platform's own cookie names (the session cookie), which no instance may set for a caller. */
export type FlowDeps = ModuleDeps<Record<string, never>, FlowConfig> & {
  audit: AuditTrail;
  ownCookies: readonly string[];
  /** Counts calls in flight and upstream errors by instance, for metrics. */
  telemetry?: Telemetry;
};

/** The flow module: the proxy routes, and one keep-alive pool per instance while started. */
export const flowModule = defineModule({
  name: 'flow',
  create(deps: FlowDeps) {
    const instances = new FlowInstances(deps.config.instances, deps.config.connectionsPerInstance);
    const health = new FlowHealth();
    const proxy = new FlowProxy(
      instances,
      deps.audit,
      deps.config.audit,
      new OwnCookies(deps.ownCookies),
      health,
      deps.telemetry,
    );
    const ctx = { proxy, instances, health };
    return {
      prefix: '/cxf/svc-flow',
      plugin: async (app) => {
        getInstancesRoute(app, ctx);
        await proxyRoutes(app, ctx);
      },
      start: () => instances.start(),
      close: () => instances.close(),
    };
  },
});

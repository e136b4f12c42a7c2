import type { FlowHealth } from './flow-health.js';
import type { FlowInstances } from './flow-instances.js';
import type { FlowProxy } from './flow-proxy.js';

/** What the route files of the module need. */
export interface FlowContext {
  proxy: FlowProxy;
  instances: FlowInstances;
  health: FlowHealth;
}

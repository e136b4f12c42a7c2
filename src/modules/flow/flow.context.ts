import type { FlowProxy } from './flow-proxy.js';

/** What the route files of the module need. */
export interface FlowContext {
  proxy: FlowProxy;
}

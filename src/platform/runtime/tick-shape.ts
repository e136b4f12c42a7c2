// Keeps Node's tick objects on V8's fast path for the life of the process (issue 47 goal 5).
import { createHook } from 'node:async_hooks';

/**
 * `process.nextTick` builds each tick object as an object literal with computed (symbol) keys. V8 records the map
 * each of those defines sees, weakly; when a garbage collection finds no tick object alive (the service's start
 * collects often), the maps go, the next tick makes new ones, and the define's feedback turns megamorphic for good:
 * from then on every tick defines its properties through the runtime, three calls of ~1.3k instructions each, 12
 * ticks a proxied call. Seen in 10 of 10 fresh service processes, in none of the bare proxy's (issue 47 goal 5).
 * Holding one tick object keeps its maps, so the feedback stays monomorphic and the defines stay inline (the loss of
 * the maps is inferred, not traced; with one tick object held, no process counted went slow).
 * Call it first thing at start; the answer must be kept (reachable) for as long as the process runs. Without a tick
 * object (another Node's internals), it answers undefined and changes nothing.
 */
export function keepTickShape(): object | undefined {
  let tick: object | undefined;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') tick ??= resource;
    },
  }).enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
  return tick;
}

function noop(): void {}

// The last frame a live stream (Server-Sent Events) sends before this instance ends it: every module with streams
// writes the same event, so a client handles one shape whatever it subscribed to.

/** A final event: its SSE `event:` name and its JSON `data`. It carries no `id`, so Last-Event-ID stays the last real one. */
export interface FinalStreamEvent {
  readonly name: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * Sent when the instance shuts down (SIGTERM, after the drain period): the client reconnects at once, through the
 * load balancer to another instance, with its Last-Event-ID, and misses nothing.
 */
export const SHUTDOWN_STREAM_EVENT: FinalStreamEvent = {
  name: 'reconnect',
  data: {
    reason: 'shutdown',
    message: 'This instance is shutting down; reconnect with Last-Event-ID to continue on another instance',
  },
};

/** The event as SSE text: `event:` and `data:` lines and the blank line that ends the frame. */
export function finalEventFrame(event: FinalStreamEvent): string {
  return `event: ${event.name}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

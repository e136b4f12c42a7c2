// Live streams over fetch (not EventSource, which cannot send API keys or bearer tokens in headers): connect, read
// Server-Sent Events, and when the connection ends reconnect with back-off (0.2 s doubling up to 5 s, each wait
// jittered to between half and all of it) sending `Last-Event-ID`, so the service replays what was missed.
import type { ClientCore } from './client.js';
import { ApiError } from './errors.js';
import { SseParser, type SseMessage } from './sse.js';

export type StreamState = 'connecting' | 'open' | 'closed';
export type Unsubscribe = () => void;

/** The service could not resume (an unknown or too old Last-Event-ID): the stream goes on from now. */
export interface ResetEvent {
  type: 'reset';
  reason: string;
  message: string;
}

export interface StreamOptions {
  /** Resume after this event id (the `eventId` of an event received before, e.g. kept across page loads). */
  lastEventId?: string;
  /**
   * `connecting` (first connect, and while waiting to reconnect), `open` (the service answered the stream), `closed`
   * (the subscription ended: unsubscribed, or the service refused it for good).
   */
  onStateChange?(state: StreamState): void;
  /**
   * A failure: a refused stream (ApiError; 401/403/404 end the subscription, 429 and 5xx are retried) or a lost
   * connection (retried).
   */
  onError?(error: unknown): void;
}

export const BACKOFF_FIRST_MS = 200;
export const BACKOFF_MAX_MS = 5_000;

/** The wait before reconnect attempt `attempt` (0-based): 0.2 s doubling to 5 s, jittered to [half, all]. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const full = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(attempt, 16));
  return full / 2 + (full / 2) * random();
}

/** Whether a refused stream is worth asking again (overload, maintenance, a restarting service). */
const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

/** Parses a reset event's data (`{reason, message}`). */
export function resetOf(message: SseMessage): ResetEvent {
  let data: { reason?: unknown; message?: unknown } = {};
  try {
    data = JSON.parse(message.data) as typeof data;
  } catch {
    // keep the defaults
  }
  return {
    type: 'reset',
    reason: typeof data.reason === 'string' ? data.reason : 'unknown',
    message: typeof data.message === 'string' ? data.message : message.data,
  };
}

/**
 * Subscribes to the SSE stream at `path` (relative to the client's base URL) and calls `onMessage` with every
 * event, in order, across reconnects. Answers the function that ends it (aborting the open request).
 */
export function subscribeStream(
  core: ClientCore,
  path: string,
  onMessage: (message: SseMessage) => void,
  options: StreamOptions = {},
): Unsubscribe {
  let stopped = false;
  let lastEventId = options.lastEventId;
  let current: AbortController | undefined;
  /** Cancels the open stream's body: what ends a connection whose answer has come (see `connect`). */
  let cancelBody: (() => void) | undefined;
  let wake: (() => void) | undefined;
  let state: StreamState | undefined;
  const setState = (next: StreamState) => {
    if (state === next) return;
    state = next;
    options.onStateChange?.(next);
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  /** One connection; answers whether to try again. */
  const connect = async (): Promise<'failed' | 'ended' | 'stop'> => {
    const controller = new AbortController();
    current = controller;
    const headers: Record<string, string> = { Accept: 'text/event-stream', 'Cache-Control': 'no-cache' };
    if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
    let response: Response;
    try {
      response = await core.send(
        new Request(`${core.baseUrl}${path}`, { method: 'GET', headers, signal: controller.signal }),
      );
    } catch (error) {
      if (!stopped) options.onError?.(error);
      return 'failed';
    }
    if (!response.ok || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      const text = await response.text().catch(() => '');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      options.onError?.(ApiError.from(body, response));
      return retryable(response.status) ? 'failed' : 'stop';
    }
    setState('open');
    const parser = new SseParser(
      {
        onEvent: (message) => {
          if (stopped) return;
          if (message.id !== undefined) lastEventId = message.id;
          try {
            onMessage(message);
          } catch (error) {
            // The caller's handler failed: say so, and keep the stream (the next events are not its fault).
            options.onError?.(error);
          }
        },
      },
      lastEventId,
    );
    const decoder = new TextDecoder();
    const reader = response.body?.getReader();
    if (!reader) return 'ended';
    // Once the answer has come, ending it cancels its body rather than relying on the abort: fetch's request follows
    // the caller's signal through Request copies that it holds only weakly, so after a garbage collection the abort
    // could reach nothing and the read would wait for the server's next bytes.
    cancelBody = () => void reader.cancel().catch(() => {});
    if (stopped) cancelBody();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      if (!stopped) options.onError?.(error);
    } finally {
      cancelBody = undefined;
    }
    return 'ended';
  };

  const run = async () => {
    let attempt = 0;
    while (!stopped) {
      setState('connecting');
      const outcome = await connect();
      if (stopped || outcome === 'stop') break;
      // A stream that was open and ended starts the back-off afresh; failures in a row make the waits grow.
      if (outcome === 'ended') attempt = 0;
      setState('connecting');
      await sleep(backoffDelay(attempt++));
    }
    stopped = true;
    setState('closed');
  };
  void run();

  return () => {
    if (stopped) return;
    stopped = true;
    current?.abort();
    cancelBody?.();
    wake?.();
  };
}

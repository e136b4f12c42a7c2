// Server-Sent Events fed by the change feed, for any module: the response's head and retry hint, resumption by
// Last-Event-ID (missed events read back from the feed, live ones held meanwhile), `reset` when it cannot resume,
// heartbeats, the cut of a slow reader, and ending every stream (shutdown, maintenance). What an event reads as for one
// subscriber, if anything, is the module's `render`, evaluated once per audience (streams that see every event alike)
// and written to its streams as the same bytes (sse-frame.ts).
import { SseFrame, writeFrame } from './sse-frame.js';
import { finalEventFrame, type FinalStreamEvent } from './stream-end.js';
import type { Telemetry } from '../metrics/index.js';
import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { FeedEvent, Replay } from '../events/index.js';

export interface SseSettings {
  heartbeatMs: number;
  /** The reconnection delay the stream asks EventSource clients for. */
  retryMs: number;
  /** Bytes a connection may have waiting for its client; past that it is closed, and the client resumes. */
  maxQueuedBytes: number;
}

/**
 * One open stream as a module describes it; the hub files it under `group` (dispatch and endGroup go by it) and, in
 * the group, under `audience`: streams of one group and audience must see every event alike (the same caller's
 * rights, for instance), since the hub renders an event once per audience and writes that to all of them.
 */
export interface SseSubscriber {
  readonly group: string;
  readonly audience: string;
  readonly res: ServerResponse;
}

/** A final event written before a stream ends (`endAll`): the shutdown's `reconnect` (platform/http/stream-end.ts). */
export type SseFinalEvent = FinalStreamEvent;

export interface SseHubOptions<S extends SseSubscriber> {
  /** For the log lines. */
  name: string;
  /** The stream's label in the metrics (`notifications`, `store`). */
  metricName?: string;
  /** Counts open streams for the metrics, when they are on. */
  telemetry?: Telemetry;
  settings: SseSettings;
  log: FastifyBaseLogger;
  /**
   * The frame (`id:`, `event:`, `data:` lines) the event is for this subscriber (and its audience), or undefined for
   * nothing. `shared` lives for one event: audiences that see it alike may share their text through it.
   */
  render(sub: S, event: FeedEvent, shared: Map<string, string | undefined>): string | undefined;
  /** The subscriber's missed events after `afterId`, oldest first, at most `limit` (ChangeFeed.replay). */
  replay(sub: S, afterId: number, limit: number): Promise<Replay>;
}

interface Entry<S> {
  sub: S;
  /** Live events that arrive while the missed ones are read back; undefined once live. */
  pending?: FeedEvent[];
  lastId: number;
  /** The heartbeat tick (half a heartbeat interval) of the last write to the stream. */
  wrote: number;
}

const REPLAY_PAGE = 500;
const HEARTBEAT = new SseFrame(': heartbeat\n\n');
/**
 * Heartbeats written per turn of the event loop. A pass over 10,000 streams costs about 100 ms of one core (mostly the
 * kernel's send per socket); in slices, an event that arrives meanwhile waits for one slice, not the whole pass.
 */
const HEARTBEAT_SLICE = 500;

/** A group's streams by audience. */
type Audiences<S> = Map<string, Set<Entry<S>>>;

export class SseHub<S extends SseSubscriber> {
  private readonly groups = new Map<string, Audiences<S>>();
  private heartbeat?: NodeJS.Timeout;
  private heartbeatSlice?: NodeJS.Immediate;
  /** Half heartbeat intervals since start: a stream gets a heartbeat when nothing was written to it for two. */
  private tick = 0;

  /** The retry hint every stream starts with, made once. */
  private readonly retryFrame: SseFrame;

  constructor(private readonly options: SseHubOptions<S>) {
    this.retryFrame = new SseFrame(`retry: ${options.settings.retryMs}\n\n`);
  }

  /**
   * Heartbeats go to idle streams only: the timer runs every half interval, and a stream gets one when it had no write
   * in the last two halves, so no stream is silent for longer than the interval, an idle one gets one per interval,
   * and a stream that had events gets none (at 10,000 streams a pass costs about as much as delivering an event).
   */
  start(): void {
    this.heartbeat = setInterval(() => this.beat(), this.options.settings.heartbeatMs / 2);
    this.heartbeat.unref();
  }

  /** Stops the heartbeats and ends every stream. */
  close(final?: SseFinalEvent): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.heartbeatSlice) clearImmediate(this.heartbeatSlice);
    this.heartbeat = this.heartbeatSlice = undefined;
    this.endAll(final);
  }

  /** Ends every stream, each with `final` as its last event when given (clients reconnect after their retry delay). */
  endAll(final?: SseFinalEvent): void {
    const frame = final && new SseFrame(finalEventFrame(final));
    for (const e of this.entries()) {
      if (frame) this.write(e, frame);
      e.sub.res.end();
    }
    this.groups.clear();
  }

  /** Ends the streams of one group. */
  endGroup(group: string): void {
    for (const set of this.groups.get(group)?.values() ?? []) for (const e of set) e.sub.res.end();
    this.groups.delete(group);
  }

  get connections(): number {
    let n = 0;
    for (const audiences of this.groups.values()) for (const set of audiences.values()) n += set.size;
    return n;
  }

  /** Whether any stream of the group is open (a module may skip work for groups nobody watches). */
  watched(group: string): boolean {
    return this.groups.has(group);
  }

  /** Takes over the response: headers, the retry hint, then missed events (when resuming) and live ones. */
  async open(sub: S, lastEventId: string | undefined): Promise<void> {
    const { res } = sub;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // The head goes out now and the retry hint after it by the path every event takes (the prepared chunk to the
    // socket), so that the opening trains that path's optimised code on the Buffers the events bring: after 10,000
    // openings by `res.write` (strings, corked) the first pass recompiled it (docs/benchmarks.md, goal 7).
    res.flushHeaders();
    writeFrame(res, this.retryFrame);
    const entry: Entry<S> = { sub, pending: [], lastId: 0, wrote: this.tick };
    let audiences = this.groups.get(sub.group);
    if (!audiences) this.groups.set(sub.group, (audiences = new Map()));
    let set = audiences.get(sub.audience);
    if (!set) audiences.set(sub.audience, (set = new Set()));
    set.add(entry);
    const closed = this.options.telemetry?.streamOpened(this.options.metricName ?? this.options.name);
    res.on('close', () => {
      closed?.();
      const a = this.groups.get(sub.group);
      const s = a?.get(sub.audience);
      s?.delete(entry);
      if (s?.size === 0) a?.delete(sub.audience);
      if (a?.size === 0) this.groups.delete(sub.group);
    });
    try {
      if (lastEventId !== undefined) await this.resume(entry, lastEventId.trim());
    } catch (err) {
      this.options.log.warn({ err }, `${this.options.name}: resuming failed`);
      this.reset(entry, 'unavailable', 'Missed events could not be read; the stream starts from now');
    }
    const pending = entry.pending ?? [];
    entry.pending = undefined;
    for (const event of pending) if (event.id > entry.lastId) this.send(entry, event, new Map());
  }

  /**
   * Offers the event to every stream of the group: `render` once per audience, and its frame, as bytes made once,
   * to each of the audience's live streams (those still reading back missed events hold it until they are done).
   */
  dispatch(group: string, event: FeedEvent): void {
    const audiences = this.groups.get(group);
    if (!audiences) return;
    const shared = new Map<string, string | undefined>();
    const frames = new Map<string, SseFrame>();
    for (const set of audiences.values()) {
      let frame: SseFrame | undefined | null = null;
      for (const e of set) {
        if (e.pending) {
          e.pending.push(event);
          continue;
        }
        // Read back already when the stream resumed: an event is in the database from its commit on, and the feed
        // dispatches it after that. A group's events are one tenant's, which the feed dispatches in id order.
        if (event.id <= e.lastId) continue;
        if (frame === null) {
          const text = this.options.render(e.sub, event, shared);
          frame = text === undefined ? undefined : frames.get(text);
          if (text !== undefined && !frame) frames.set(text, (frame = new SseFrame(text)));
        }
        if (!frame) continue;
        e.lastId = event.id;
        this.write(e, frame);
      }
    }
  }

  private async resume(entry: Entry<S>, raw: string): Promise<void> {
    if (!/^\d{1,15}$/.test(raw))
      return this.reset(
        entry,
        'invalid',
        'Last-Event-ID is not an event id of this stream; the stream starts from now',
      );
    let after = Number(raw);
    for (;;) {
      const replay = await this.options.replay(entry.sub, after, REPLAY_PAGE);
      if (replay.kind === 'expired')
        return this.reset(
          entry,
          'expired',
          'Events after Last-Event-ID are older than the retention window; the stream starts from now',
        );
      if (replay.kind === 'unknown')
        return this.reset(entry, 'unknown', 'Last-Event-ID names no event of this stream; the stream starts from now');
      const shared = new Map<string, string | undefined>();
      for (const event of replay.events) {
        this.send(entry, event, shared);
        shared.clear();
        after = event.id;
      }
      entry.lastId = after;
      if (replay.events.length < REPLAY_PAGE || entry.sub.res.destroyed) return;
    }
  }

  private reset(entry: Entry<S>, reason: string, message: string): void {
    this.write(entry, new SseFrame(`event: reset\ndata: ${JSON.stringify({ reason, message })}\n\n`));
  }

  private send(entry: Entry<S>, event: FeedEvent, shared: Map<string, string | undefined>): void {
    const text = this.options.render(entry.sub, event, shared);
    if (text === undefined) return;
    entry.lastId = event.id;
    this.write(entry, new SseFrame(text));
  }

  /** One heartbeat tick: the streams idle for two ticks, written in slices (a pass still running is overtaken). */
  private beat(): void {
    const tick = ++this.tick;
    const due: Entry<S>[] = [];
    for (const e of this.entries()) if (e.wrote <= tick - 2) due.push(e);
    if (this.heartbeatSlice) clearImmediate(this.heartbeatSlice);
    let at = 0;
    const slice = () => {
      this.heartbeatSlice = undefined;
      for (const end = Math.min(at + HEARTBEAT_SLICE, due.length); at < end; at++) {
        const e = due[at];
        // An event written since the tick makes the heartbeat needless; a stream still resuming gets none.
        if (!e.pending && e.wrote <= tick - 2) this.write(e, HEARTBEAT);
      }
      if (at < due.length) this.heartbeatSlice = setImmediate(slice);
    };
    slice();
  }

  private *entries(): Iterable<Entry<S>> {
    for (const audiences of this.groups.values()) for (const set of audiences.values()) yield* set;
  }

  private write(entry: Entry<S>, frame: SseFrame): void {
    const { res } = entry.sub;
    if (res.destroyed || res.writableEnded) return;
    if (res.writableLength > this.options.settings.maxQueuedBytes) {
      // A slow reader must not hold the others up or grow memory: it is cut off and resumes by Last-Event-ID.
      this.options.log.debug(`${this.options.name}: subscriber too slow, connection closed`);
      res.destroy();
      return;
    }
    entry.wrote = this.tick;
    writeFrame(res, frame);
  }
}

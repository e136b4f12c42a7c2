// The hub's heartbeats, on the clock of the test: idle streams get one per interval and are never silent longer,
// streams that had events get none, and a pass over many streams yields to events between slices.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FeedEvent } from '../events/index.js';
import { SseHub, type SseSubscriber } from './sse-hub.js';

const HEARTBEAT_MS = 1000;

/** A response that records what was written to it, with the time of each write. */
class FakeResponse extends EventEmitter {
  readonly frames: { at: number; text: string }[] = [];
  destroyed = false;
  writableEnded = false;
  writableLength = 0;
  socket = null;
  writeHead(): this {
    return this;
  }
  flushHeaders(): void {}
  write(chunk: string | Buffer): boolean {
    this.frames.push({ at: Date.now(), text: String(chunk) });
    return true;
  }
  end(): void {
    this.writableEnded = true;
    this.emit('close');
  }
  heartbeats(): number[] {
    return this.frames.filter((f) => f.text.startsWith(':')).map((f) => f.at);
  }
  events(): number {
    return this.frames.filter((f) => f.text.startsWith('id:')).length;
  }
}

const noLog = { warn() {}, debug() {} } as unknown as FastifyBaseLogger;

async function open(hub: SseHub<SseSubscriber>, group: string, count = 1): Promise<FakeResponse[]> {
  const all = Array.from({ length: count }, () => new FakeResponse());
  for (const res of all) await hub.open({ group, audience: 'a', res: res as unknown as ServerResponse }, undefined);
  return all;
}

describe('SSE hub heartbeats', () => {
  let nextId = 1;
  const event = (group: string): FeedEvent => ({
    tenantId: group,
    id: nextId++,
    topic: 't',
    createdOn: Date.now(),
    payload: {},
  });
  let hub: SseHub<SseSubscriber>;
  beforeEach(() => {
    vi.useFakeTimers();
    hub = new SseHub<SseSubscriber>({
      name: 'test stream',
      settings: { heartbeatMs: HEARTBEAT_MS, retryMs: 1000, maxQueuedBytes: 1 << 20 },
      log: noLog,
      render: (_sub, e) => `id: ${e.id}\ndata: {}\n\n`,
      replay: async () => ({ kind: 'events', events: [] }),
    });
    hub.start();
  });
  afterEach(() => {
    hub.close();
    vi.useRealTimers();
  });

  it('writes one heartbeat per interval to an idle stream, never leaving it silent longer', async () => {
    const [idle] = await open(hub, 'g');
    const opened = Date.now();
    await vi.advanceTimersByTimeAsync(5 * HEARTBEAT_MS);
    const beats = idle.heartbeats();
    expect(beats).toHaveLength(5);
    let last = opened;
    for (const at of beats) {
      expect(at - last).toBeLessThanOrEqual(HEARTBEAT_MS);
      last = at;
    }
  });

  it('writes none to a stream that had events, and one once its events stop', async () => {
    const [busy] = await open(hub, 'busy');
    const [idle] = await open(hub, 'idle');
    for (let i = 0; i < 12; i++) {
      await vi.advanceTimersByTimeAsync(HEARTBEAT_MS / 4);
      hub.dispatch('busy', event('busy'));
    }
    expect(busy.events()).toBe(12);
    expect(busy.heartbeats()).toHaveLength(0);
    expect(idle.heartbeats()).toHaveLength(3);
    const lastEvent = Date.now();
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
    expect(busy.heartbeats()).toHaveLength(1);
    expect(busy.heartbeats()[0] - lastEvent).toBeLessThanOrEqual(HEARTBEAT_MS);
  });

  it('writes the heartbeats of many streams in slices, so an event overtakes the rest of the pass', async () => {
    const streams = await open(hub, 'g', 1200);
    // Up to the tick that makes every stream due; its first slice is written in the timer's turn.
    await vi.advanceTimersToNextTimerAsync();
    await vi.advanceTimersToNextTimerAsync();
    await vi.advanceTimersToNextTimerAsync();
    const beaten = streams.filter((s) => s.heartbeats().length > 0).length;
    expect(beaten).toBeGreaterThan(0);
    expect(beaten).toBeLessThan(1200);
    hub.dispatch('g', event('g'));
    expect(streams.every((s) => s.events() === 1)).toBe(true);
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS / 4);
    // The streams the event reached before their heartbeat need none in this pass.
    expect(streams.filter((s) => s.heartbeats().length > 0).length).toBe(beaten);
  });
});

// A resumed stream reads its missed events back from the database, where an event is as soon as it commits; the
// instance's feed may dispatch the same event after that (it delivers after the commit, one event at a time). Seen in
// CI as a notification sent twice to a stream resumed on the instance that wrote it (test/operations/drain.test.ts).
describe('SSE hub resuming by Last-Event-ID', () => {
  const event = (id: number): FeedEvent => ({ tenantId: 'g', id, topic: 't', createdOn: Date.now(), payload: {} });

  it('sends an event once when the feed dispatches it after the stream read it back', async () => {
    const hub = new SseHub<SseSubscriber>({
      name: 'test stream',
      settings: { heartbeatMs: 60_000, retryMs: 1000, maxQueuedBytes: 1 << 20 },
      log: noLog,
      render: (_sub, e) => `id: ${e.id}\ndata: {}\n\n`,
      // Committed after 5: 6 and 7, which the feed has not dispatched yet.
      replay: async (_sub, afterId) => ({ kind: 'events', events: [6, 7].filter((id) => id > afterId).map(event) }),
    });
    const res = new FakeResponse();
    await hub.open({ group: 'g', audience: 'a', res: res as unknown as ServerResponse }, '5');
    for (const id of [6, 7, 8]) hub.dispatch('g', event(id));
    const ids = res.frames
      .filter((f) => f.text.startsWith('id:'))
      .map((f) => Number(f.text.slice(4, f.text.indexOf('\n'))));
    expect(ids).toEqual([6, 7, 8]);
    hub.close();
  });
});

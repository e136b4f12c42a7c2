import { describe, expect, it } from 'vitest';
import type { PublishedEvent } from './change-feed.js';
import type { EventNotice } from './change-feed.js';
import { PostgresTransport } from './postgres-transport.js';

const transport = new PostgresTransport({
  connect: () => Promise.reject(new Error('not connected in this test')),
  channel: 'svc_events_test',
  log: {} as never,
});

/** The message as announcedEvent's SQL makes it from the parts (test/platform/change-feed.test.ts runs the SQL). */
const message = (n: EventNotice, id: number, payloadText: string) =>
  Buffer.byteLength(payloadText) <= n.maxPayloadBytes
    ? `${n.before}${id}${n.head}${payloadText}${n.tail}`
    : `${n.before}${id}${n.reference}`;
const messageOf = (event: PublishedEvent, now: number, id: number) =>
  message(transport.notice(event, now), id, JSON.stringify(event.payload ?? null));

describe('PostgresTransport.notice', () => {
  it('is the message the listeners parse, around the id and payload the statement takes', () => {
    expect(transport.notice({ tenantId: 't', topic: 'x' }, 1).channel).toBe('svc_events_test');
    const event = { tenantId: 't"1', topic: 'store', payload: { a: 'é', b: [1] } };
    expect(JSON.parse(messageOf(event, 1_700_000_000_000, 9007199254740991))).toEqual({
      t: 't"1',
      i: 9007199254740991,
      o: 'store',
      c: 1_700_000_000_000,
      p: { a: 'é', b: [1] },
    });
    expect(JSON.parse(messageOf({ tenantId: 't', topic: 'x', payload: undefined }, 1, 7))).toEqual({
      t: 't',
      i: 7,
      o: 'x',
      c: 1,
      p: null,
    });
  });

  it('is a reference naming topic and time past 7,000 bytes of message (NOTIFY takes fewer than 8,000)', () => {
    const fits = { tenantId: 't', topic: 'x', payload: 'é'.repeat(3_400) };
    expect(Buffer.byteLength(messageOf(fits, 1, 9007199254740991))).toBeLessThanOrEqual(7_000);
    expect(JSON.parse(messageOf(fits, 1, 3)).p).toBe('é'.repeat(3_400));
    const big = { tenantId: 't', topic: 'x', payload: 'é'.repeat(3_500) };
    expect(JSON.parse(messageOf(big, 5, 12))).toEqual({ t: 't', i: 12, r: 'x', c: 5 });
    // The limit is the largest payload whose message, with an id of 16 digits, stays within 7,000 bytes.
    const n = transport.notice({ tenantId: 't', topic: 'x' }, 5);
    const at = `"${'a'.repeat(n.maxPayloadBytes - 2)}"`;
    expect(Buffer.byteLength(message(n, 9007199254740991, at))).toBe(7_000);
    expect(JSON.parse(message(n, 1, `${at} `)).r).toBe('x');
  });
});

import { describe, expect, it } from 'vitest';
import type { PublishedEvent } from './change-feed.js';
import { PostgresTransport } from './postgres-transport.js';

const transport = new PostgresTransport({
  connect: () => Promise.reject(new Error('not connected in this test')),
  channel: 'svc_events_test',
  log: {} as never,
});
const noticeOf = (event: PublishedEvent, now: number) =>
  transport.notice(event, now, JSON.stringify(event.payload ?? null));

describe('PostgresTransport.notice', () => {
  it('is the message the listeners parse, around the id the statement takes', () => {
    const n = noticeOf({ tenantId: 't"1', topic: 'store', payload: { a: 'é', b: [1] } }, 1_700_000_000_000);
    expect(n.channel).toBe('svc_events_test');
    expect(JSON.parse(`${n.before}9007199254740991${n.after}`)).toEqual({
      t: 't"1',
      i: 9007199254740991,
      o: 'store',
      c: 1_700_000_000_000,
      p: { a: 'é', b: [1] },
    });
    const none = noticeOf({ tenantId: 't', topic: 'x', payload: undefined }, 1);
    expect(JSON.parse(`${none.before}7${none.after}`)).toEqual({ t: 't', i: 7, o: 'x', c: 1, p: null });
  });

  it('is a reference naming topic and time past 7,000 bytes of message (NOTIFY takes fewer than 8,000)', () => {
    const fits = noticeOf({ tenantId: 't', topic: 'x', payload: 'é'.repeat(3_400) }, 1);
    expect(Buffer.byteLength(`${fits.before}9007199254740991${fits.after}`)).toBeLessThanOrEqual(7_000);
    expect(JSON.parse(`${fits.before}3${fits.after}`).p).toBe('é'.repeat(3_400));
    const big = noticeOf({ tenantId: 't', topic: 'x', payload: 'é'.repeat(3_500) }, 5);
    expect(JSON.parse(`${big.before}12${big.after}`)).toEqual({ t: 't', i: 12, r: 'x', c: 5 });
  });
});

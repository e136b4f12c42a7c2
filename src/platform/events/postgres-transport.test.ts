import { describe, expect, it } from 'vitest';
import { PostgresTransport } from './postgres-transport.js';

const transport = new PostgresTransport({
  connect: () => Promise.reject(new Error('not connected in this test')),
  channel: 'svc_events_test',
  log: {} as never,
});

describe('PostgresTransport.notice', () => {
  it('is the message the listeners parse, around the id the statement takes', () => {
    const n = transport.notice({ tenantId: 't"1', topic: 'store', payload: { a: 'é', b: [1] } }, 1_700_000_000_000);
    expect(n.channel).toBe('svc_events_test');
    expect(JSON.parse(`${n.before}9007199254740991${n.after}`)).toEqual({
      t: 't"1',
      i: 9007199254740991,
      o: 'store',
      c: 1_700_000_000_000,
      p: { a: 'é', b: [1] },
    });
    const none = transport.notice({ tenantId: 't', topic: 'x', payload: undefined }, 1);
    expect(JSON.parse(`${none.before}7${none.after}`)).toEqual({ t: 't', i: 7, o: 'x', c: 1 });
  });

  it('is a reference, with its topic and time, past 7,000 bytes of message (NOTIFY takes fewer than 8,000)', () => {
    const fits = transport.notice({ tenantId: 't', topic: 'x', payload: 'é'.repeat(3_400) }, 1);
    expect(Buffer.byteLength(`${fits.before}9007199254740991${fits.after}`)).toBeLessThanOrEqual(7_000);
    const big = transport.notice({ tenantId: 't', topic: 'x', payload: 'é'.repeat(3_500) }, 1);
    expect(JSON.parse(`${big.before}12${big.after}`)).toEqual({ t: 't', i: 12, r: 'x', c: 1 });
  });
});

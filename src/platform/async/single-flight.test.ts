import { describe, expect, it } from 'vitest';
import { SingleFlight } from './single-flight.js';

describe('SingleFlight', () => {
  it('answers concurrent calls of one key from one running call, and starts anew once it settled', async () => {
    const flight = new SingleFlight<string, number>();
    let started = 0;
    const start = () => new Promise<number>((resolve) => setImmediate(() => resolve(++started)));
    const [a, b, c] = await Promise.all([flight.run('k', start), flight.run('k', start), flight.run('other', start)]);
    expect([a, b]).toEqual([1, 1]);
    expect(c).toBe(2);
    expect(await flight.run('k', start)).toBe(3);
  });

  it('hands a failure to every waiting caller, then forgets it', async () => {
    const flight = new SingleFlight<string, number>();
    let calls = 0;
    const failing = () => new Promise<number>((_, reject) => setImmediate(() => reject(new Error(`down ${++calls}`))));
    const both = await Promise.allSettled([flight.run('k', failing), flight.run('k', failing)]);
    expect(both.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual([
      'down 1',
      'down 1',
    ]);
    expect(flight.get('k')).toBeUndefined();
    await expect(flight.run('k', () => Promise.resolve(7))).resolves.toBe(7);
  });
});

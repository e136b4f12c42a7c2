// keepTickShape takes one tick object of Node's nextTick queue (the object whose maps it keeps alive).
import { describe, expect, it } from 'vitest';
import { keepTickShape } from './tick-shape.js';

describe('keepTickShape', () => {
  it("answers a tick object of Node's queue, holding the callback it queued", () => {
    const tick = keepTickShape() as { callback?: unknown } | undefined;
    expect(tick).toBeDefined();
    expect(typeof tick?.callback).toBe('function');
  });
});

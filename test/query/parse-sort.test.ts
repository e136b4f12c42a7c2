import { describe, expect, it } from 'vitest';
import { parseSort } from '../../src/platform/query/parse-sort.js';

describe('parseSort', () => {
  it.each([
    ['name|ASC', [{ property: 'name', direction: 'ASC' }]],
    ['name|desc', [{ property: 'name', direction: 'DESC' }]],
    ['name', [{ property: 'name', direction: 'ASC' }]],
    ['name|', [{ property: 'name', direction: 'ASC' }]],
    [
      ' value.priority | Desc , createdOn|asc ',
      [
        { property: 'value.priority', direction: 'DESC' },
        { property: 'createdOn', direction: 'ASC' },
      ],
    ],
    ['attributes.ns:key|DESC', [{ property: 'attributes.ns:key', direction: 'DESC' }]],
    [
      'a,,b',
      [
        { property: 'a', direction: 'ASC' },
        { property: 'b', direction: 'ASC' },
      ],
    ],
    ['', []],
  ])('%j', (input, expected) => {
    expect(parseSort(input)).toEqual(expected);
  });

  it('takes parsed instructions (data management sorters)', () => {
    expect(parseSort([{ property: 'displayName', direction: 'desc' as any }, { property: 'id' } as any])).toEqual([
      { property: 'displayName', direction: 'DESC' },
      { property: 'id', direction: 'ASC' },
    ]);
  });

  it.each([['name|UP'], ['name|ASC|DESC'], ['a..b|ASC'], ['a"b'], [Array(11).fill('a').join(',')], ['x'.repeat(3000)]])(
    '%j: 400',
    (input) => {
      expect(() => parseSort(input)).toThrow(expect.objectContaining({ statusCode: 400 }));
    },
  );

  it.each([
    [[{ property: 1, direction: 'ASC' }]],
    [[{ property: 'a', direction: 'sideways' }]],
    [[null]],
    [[{ property: 'a', direction: 5 }]],
  ])('bad instruction %j: 400', (input) => {
    expect(() => parseSort(input as any)).toThrow(expect.objectContaining({ statusCode: 400 }));
  });
});

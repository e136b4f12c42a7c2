import { describe, expect, it } from 'vitest';
import {
  exceedsJsonDepth,
  findComponentError,
  parseVersion,
  storedConfigJson,
} from '../../src/modules/forms/form-definition.js';

const LIMITS = { maxJsonDepth: 10, maxComponentDepth: 3, maxComponents: 5 };

describe('findComponentError', () => {
  it.each([
    ['an empty list', [], null],
    ['flat components', [{ type: 'a' }, { type: 'b', label: 'B', extra: { x: 1 } }], null],
    ['three levels', [{ type: 'p', components: [{ type: 'p', components: [{ type: 'leaf' }] }] }], null],
    [
      'four levels',
      [{ type: 'p', components: [{ type: 'p', components: [{ type: 'p', components: [{ type: 'x' }] }] }] }],
      'root[0].components[0].components[0].components',
    ],
    [
      'a column is a level like components',
      [{ type: 'c', columns: [{ components: [{ type: 'p', components: [{ type: 'x' }] }] }] }],
      null,
    ],
    [
      'four levels through a column',
      [
        {
          type: 'c',
          columns: [{ components: [{ type: 'p', components: [{ type: 'p', components: [{ type: 'x' }] }] }] }],
        },
      ],
      'root[0].columns[0].components[0].components[0].components',
    ],
    [
      'rows of cells',
      [{ type: 't', rows: [[{ components: [{ type: 'x' }] }, { components: [{ label: 'no type' }] }]] }],
      'root[0].rows[0][1].components[0].type',
    ],
    [
      'rows of single cells',
      [{ type: 't', rows: [{ components: [{ type: 7 }] }] }],
      'root[0].rows[0].components[0].type',
    ],
    ['rows that are not a table', [{ type: 'textarea', rows: 4, columns: 80 }], null],
    [
      'six components',
      [{ type: 'a' }, { type: 'a' }, { type: 'a' }, { type: 'a', components: [{ type: 'a' }, { type: 'a' }] }],
      'root[3].components[1]',
    ],
    ['a label that is not a string', [{ type: 'a', label: null }], 'root[0].label'],
    ['a null component', [null], 'root[0]'],
    ['an array component', [[{ type: 'a' }]], 'root[0]'],
    ['components not an array', { type: 'a' }, 'root'],
    ['nested components not an array', [{ type: 'p', components: 'x' }], 'root[0].components'],
    [
      'container components not an array',
      [{ type: 'c', columns: [{ components: {} }] }],
      'root[0].columns[0].components',
    ],
  ])('%s', (_name, components, errorPath) => {
    const err = findComponentError(components, LIMITS, 'root');
    expect(err?.path ?? null).toBe(errorPath);
  });
});

describe('exceedsJsonDepth', () => {
  it('counts arrays and objects, not scalars', () => {
    expect(exceedsJsonDepth('x', 1)).toBe(false);
    expect(exceedsJsonDepth({ a: [1] }, 2)).toBe(false);
    expect(exceedsJsonDepth({ a: [[1]] }, 2)).toBe(true);
  });

  it('copes with nesting far beyond the stack', () => {
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000));
    expect(exceedsJsonDepth(deep, 128)).toBe(true);
  });
});

describe('parseVersion', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    ['007', 7],
    ['2147483647', 2147483647],
    ['2147483648', null],
    ['0', null],
    ['-1', null],
    ['1.0', null],
    ['1e3', null],
    ['', null],
    [' 1', null],
    ['abc', null],
  ])('%j -> %j', (text, expected) => {
    expect(parseVersion(text)).toBe(expected);
  });
});

describe('storedConfigJson', () => {
  it('puts the true id and version into metaData and keeps the rest in place', () => {
    const text = storedConfigJson(
      { metaData: { version: 9, id: 'wrong', owner: 'o' }, components: [{ type: 'a', z: 1 }], extra: [1] },
      'form-1',
      3,
    );
    expect(text).toBe(
      '{"metaData":{"id":"form-1","version":3,"owner":"o"},"configuration":{},"components":[{"type":"a","z":1}],"extra":[1]}',
    );
  });
});

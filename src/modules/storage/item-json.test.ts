import { describe, expect, it } from 'vitest';
import { buildDocument } from './item-document.js';
import { itemJson } from './item-json.js';
import { toStoreItem } from './storage.service.js';
import type { StoreItemBody } from './storage.schemas.js';

const R = { roles: ['a'] };
const meta = {
  createdOn: 1_700_000_000_123,
  createdBy: 'anna "a"',
  updatedOn: 1_700_000_100_456,
  updatedBy: 'bob\u2028',
};

/** The answer as the parse-and-serialise path gives it. */
const viaObjects = (text: string) => toStoreItem({ seq: 1, doc: JSON.parse(text), ...meta });

/** PostgreSQL's jsonb text form: ", " and ": " separators, keys ordered by length (shape only; enough here). */
const jsonbLike = (value: unknown) =>
  JSON.stringify(value, null, 1)
    .replace(/\n\s*/g, ' ')
    .replace(/\{ /g, '{')
    .replace(/ \}/g, '}')
    .replace(/\[ /g, '[')
    .replace(/ \]/g, ']');

describe('itemJson', () => {
  const bodies: Array<[string, StoreItemBody]> = [
    ['no optional fields', { value: 1, readRestriction: R, writeRestriction: R }],
    [
      'all optional fields',
      {
        moduleId: 'm',
        moduleInstanceId: 'mi',
        name: 'n',
        value: { a: [1, 'x'] },
        favorite: true,
        readRestriction: R,
        writeRestriction: R,
      },
    ],
    [
      '"name" only nested in value',
      { value: { name: 'deep', moduleId: 'x' }, readRestriction: R, writeRestriction: R },
    ],
    [
      '"name" nested and at the root',
      { name: 'root', value: { name: 'deep' }, readRestriction: R, writeRestriction: R },
    ],
    ['"name" inside a string', { value: 'say "name"', readRestriction: R, writeRestriction: { user: 'u' } }],
    [
      'custom fields and unicode',
      {
        value: '\u00e4\u{1F600}\u2028',
        other: { name: null },
        readRestriction: R,
        writeRestriction: R,
      } as StoreItemBody,
    ],
  ];
  for (const [label, body] of bodies) {
    it(`answers what parse and serialise would (${label})`, () => {
      const text = JSON.stringify(buildDocument('item-1', body));
      expect(JSON.parse(itemJson({ docText: text, ...meta }))).toStrictEqual(
        JSON.parse(JSON.stringify(viaObjects(text))),
      );
    });
    it(`reads the jsonb text form alike (${label})`, () => {
      const text = jsonbLike(buildDocument('item-1', body));
      expect(JSON.parse(itemJson({ docText: text, ...meta }))).toStrictEqual(
        JSON.parse(JSON.stringify(viaObjects(text))),
      );
    });
  }

  it('names every field of the item schema once', () => {
    const text = JSON.stringify(
      buildDocument('item-1', { name: 'n', value: null, readRestriction: R, writeRestriction: R }),
    );
    const keys = [...itemJson({ docText: text, ...meta }).matchAll(/"(\w+)":/g)]
      .map((m) => m[1])
      .filter((k) => k !== 'roles');
    expect(keys.sort()).toEqual(
      [
        'id',
        'moduleId',
        'moduleInstanceId',
        'name',
        'value',
        'favorite',
        'readRestriction',
        'writeRestriction',
        'customFields',
        'createdOn',
        'createdBy',
        'updatedOn',
        'updatedBy',
      ].sort(),
    );
  });
});

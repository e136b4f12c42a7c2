// The pre-serialised replies (platform/http/json-text.ts) against what the routes promise: the text validates
// against the route's response schema, says the same as Fastify's ordinary serializer would, and starts with `id`.
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { buildDocument } from '../../src/modules/storage/item-document.js';
import { itemJson } from '../../src/modules/storage/item-json.js';
import { toStoreItem } from '../../src/modules/storage/storage.service.js';
import { StoreItemSchema, type StoreItemBody } from '../../src/modules/storage/storage.schemas.js';
import { formJson } from '../../src/modules/forms/form-json.js';
import { storedConfigJson } from '../../src/modules/forms/form-definition.js';
import { FormResponse } from '../../src/modules/forms/forms.schemas.js';
import { notificationJson } from '../../src/modules/notifications/notification-json.js';
import { normalise } from '../../src/modules/notifications/notifications.service.js';
import { NotificationSchema } from '../../src/modules/notifications/notifications.schemas.js';

// The validator Fastify itself uses, with the schema keywords its schemas use (type arrays, formats).
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
const validates = (schema: TSchema, value: unknown) => (ajv.validate(schema, value) ? '' : ajv.errorsText());

/** A small seeded generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)];
  const text = () => pick(['', 'a', 'name', '"quoted"', '\u00e4\u{1F600}', 'line\nbreak', '\u2028', 'id', 'moduleId']);
  const value = (depth: number): unknown => {
    const kind = depth > 3 ? pick(['s', 'n', 'b', 'z']) : pick(['s', 'n', 'b', 'z', 'a', 'o']);
    if (kind === 's') return text();
    if (kind === 'n') return pick([0, -1, 1.5, 1e21, 2 ** 53 - 1]);
    if (kind === 'b') return next() < 0.5;
    if (kind === 'z') return null;
    if (kind === 'a') return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [text(), value(depth + 1)]));
  };
  return { next, pick, text, value };
}

/** What Fastify's serializer makes of `payload` under `schema`, parsed back. */
async function ordinarySerializer(schema: TSchema, payload: unknown): Promise<unknown> {
  const app = Fastify();
  app.get('/', { schema: { response: { 200: schema } } }, async () => payload);
  const res = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return res.json();
}

const firstKey = (text: string) => /^\{"([^"]*)"/.exec(text)?.[1];
const meta = {
  createdOn: 1_700_000_000_123,
  createdBy: 'anna "a"',
  updatedOn: 1_700_000_100_456,
  updatedBy: 'bob\u2028',
};

describe('pre-serialised replies', () => {
  for (let seed = 1; seed <= 40; seed++) {
    it(`store item ${seed}: valid against StoreItemSchema, equal to the ordinary serializer, id first`, async () => {
      const r = random(seed);
      const restriction = () =>
        r.next() < 0.3 ? { user: 'u' } : { roles: ['a'], organisations: r.next() < 0.5 ? ['o'] : [] };
      const body: Record<string, unknown> = {
        value: r.value(0),
        readRestriction: restriction(),
        writeRestriction: restriction(),
      };
      for (const field of ['moduleId', 'moduleInstanceId', 'name']) if (r.next() < 0.5) body[field] = r.text();
      if (r.next() < 0.5) body.favorite = r.next() < 0.5;
      if (r.next() < 0.5) body.extra = r.value(1);
      const doc = buildDocument(`item-${seed}`, body as StoreItemBody);
      const text = itemJson({ docText: JSON.stringify(doc), ...meta });
      const parsed = JSON.parse(text);
      expect(firstKey(text)).toBe('id');
      expect(validates(StoreItemSchema, parsed)).toBe('');
      expect(parsed).toStrictEqual(await ordinarySerializer(StoreItemSchema, toStoreItem({ seq: 1, doc, ...meta })));
    });
  }

  for (let seed = 1; seed <= 20; seed++) {
    it(`form ${seed}: valid against FormResponse, equal to the ordinary serializer, id first`, async () => {
      const r = random(seed);
      const components = Array.from({ length: 1 + Math.floor(r.next() * 3) }, () => ({
        type: r.pick(['textfield', 'number']),
        label: r.text(),
        extra: r.value(1),
      }));
      const config = storedConfigJson(
        { components, configuration: r.next() < 0.5 ? { x: r.value(1) } : undefined } as any,
        `form-${seed}`,
        seed,
      );
      const row = {
        form_id: `form-${seed}`,
        version: seed,
        name: r.text(),
        config,
        created_on: meta.createdOn,
        created_by: meta.createdBy,
      };
      const text = formJson(row);
      const parsed = JSON.parse(text);
      expect(firstKey(text)).toBe('id');
      expect(validates(FormResponse, parsed)).toBe('');
      const asObject = {
        id: row.form_id,
        version: row.version,
        name: row.name,
        config: JSON.parse(config),
        createdOn: new Date(meta.createdOn).toISOString(),
        createdBy: row.created_by,
      };
      expect(parsed).toStrictEqual(await ordinarySerializer(FormResponse, asObject));
    });
  }

  for (let seed = 1; seed <= 20; seed++) {
    it(`notification ${seed}: valid against NotificationSchema, equal to the ordinary serializer, id first`, async () => {
      const r = random(seed);
      const input: Record<string, unknown> = {
        subject: r.text() || 's',
        recipients: [r.text() || 'r', 'R1', 'R1'],
        recipientsType: r.pick(['user', 'role', 'organisation']),
      };
      if (r.next() < 0.5) input.priority = r.pick([0, 5, 10]);
      for (const field of ['message', 'icon', 'type']) if (r.next() < 0.5) input[field] = r.text() || 'x';
      if (r.next() < 0.5) input.typeSpecificData = { targetModule: r.text(), route: [r.text()], extra: r.value(1) };
      if (r.next() < 0.5) input.unknownMember = r.value(1);
      const stored = normalise(input as any, `n-${seed}`, meta.createdBy);
      const text = notificationJson({ doc: JSON.stringify(stored), date: meta.updatedOn, version: seed });
      const parsed = JSON.parse(text);
      expect(firstKey(text)).toBe('id');
      expect(validates(NotificationSchema, parsed)).toBe('');
      expect(parsed.recipients.filter((x: string) => x === 'R1')).toEqual(['R1']);
      const asObject = { ...stored, date: new Date(meta.updatedOn).toISOString(), version: seed };
      expect(parsed).toStrictEqual(await ordinarySerializer(NotificationSchema, asObject));
    });
  }
});

describe('rootKeyScanner', () => {
  it('answers which names are keys of the root object only, as parsing would, on random documents and both text forms', async () => {
    const { rootKeyScanner } = await import('../../src/platform/http/json-text.js');
    const rootKeysPresent = (text: string, names: string[]) => rootKeyScanner(names)(text);
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 4;
    const strings = ['name', '"name"', 'a\\"b', '{', '}', '[', ']', ',', ':', 'é', '🦊', '\\', '\n', '"', 'x,"name":1'];
    const value = (depth: number): unknown => {
      const r = next() % 6;
      if (depth > 3 || r < 2) return [1, 'x', true, null, strings[next() % strings.length]][next() % 5];
      if (r < 4) return Array.from({ length: next() % 4 }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: next() % 4 }, () => [strings[next() % strings.length], value(depth + 1)]),
      );
    };
    for (let n = 0; n < 500; n++) {
      const doc = Object.fromEntries(
        Array.from({ length: next() % 6 }, () => [strings[next() % strings.length], value(1)]),
      );
      const compact = JSON.stringify(doc);
      // PostgreSQL's jsonb text: a space after each colon and comma.
      const spaced = JSON.stringify(doc, null, 1).replace(/\n\s*/g, ' ');
      const expected = strings.reduce((bits, s, i) => (Object.hasOwn(doc, s) ? bits | (1 << i) : bits), 0);
      expect(rootKeysPresent(compact, strings), compact).toBe(expected);
      expect(rootKeysPresent(spaced, strings), spaced).toBe(expected);
      // One name at a time: the scan stops at that name's last occurrence.
      for (const [i, s] of strings.entries())
        expect(rootKeysPresent(compact, [s]), `${s} in ${compact}`).toBe(expected & (1 << i) ? 1 : 0);
    }
    expect(rootKeysPresent('{}', ['a'])).toBe(0);
    expect(rootKeysPresent('{"a": {"name": 1}, "b": ["name"]}', ['name', 'b', 'a'])).toBe(0b110);
    expect(rootKeysPresent('{"x": {"name": 1}, "name": "root"}', ['name'])).toBe(1);
  });

  it('reads the string members at the head exactly, and the rest of the text only where a name occurs in it', async () => {
    const { rootKeyScanner } = await import('../../src/platform/http/json-text.js');
    const optional = rootKeyScanner(['moduleId', 'moduleInstanceId', 'name']);
    const cases: Array<[string, number]> = [
      // As buildDocument writes them: the optional fields right after the id.
      ['{"id":"a","name":"n","value":{"moduleId":"x"},"customFields":{"moduleInstanceId":1}}', 0b100],
      ['{"id":"a","moduleId":"m","moduleInstanceId":"mi","name":"n","value":1}', 0b111],
      // Written before that order, or by jsonb (keys by length): after the head.
      ['{"id":"a","value":{},"favorite":false,"moduleId":"m"}', 0b001],
      ['{"id": "a", "name": "n", "value": 1, "moduleId": "m", "moduleInstanceId": "mi"}', 0b111],
      // Names inside the head's strings, escapes, a head that is the whole object.
      ['{"id":"x\\"moduleId\\":\\"1","value":["name"]}', 0],
      ['{"id":"a\\\\","name":"n"}', 0b100],
      ['{ "id" : "a" , "moduleInstanceId" : "b" }', 0b010],
      ['{}', 0],
    ];
    for (const [text, expected] of cases) {
      const parsed = JSON.parse(text);
      const parsedBits = ['moduleId', 'moduleInstanceId', 'name'].reduce(
        (bits, name, i) => (Object.hasOwn(parsed, name) ? bits | (1 << i) : bits),
        0,
      );
      expect(parsedBits, text).toBe(expected);
      expect(optional(text), text).toBe(expected);
    }
  });
});

describe('isoDate', () => {
  it('answers what toISOString answers, within 1970-9999 and outside it', async () => {
    const { isoDate } = await import('../../src/platform/http/json-text.js');
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const samples = [
      0, 1, 999, 1000, 86_399_999, 86_400_000, 951_782_400_000, 4_107_542_399_999, 253_402_300_799_999,
      253_402_300_800_000, -1, -62_198_755_200_000, 1.5, 8.64e15,
    ];
    for (let i = 0; i < 20_000; i++)
      samples.push(Math.floor(next() * 253_402_300_800_000), Math.floor(next() * 4_102_444_800_000));
    for (const ms of samples) expect(isoDate(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('answers each millisecond of a second, and seconds that share a slot of its cache, alike (JSON text too)', async () => {
    const { isoDate, jsonIsoDate } = await import('../../src/platform/http/json-text.js');
    const base = 1_795_852_800_000;
    const samples: number[] = [];
    // Seconds 1024 apart take one slot of the cache (and 1 and 2 apart, neighbouring ones), in turns.
    for (let round = 0; round < 3; round++)
      for (const second of [0, 1024, 1, 2048, 2, 1024 * 977, 0])
        for (const ms of [0, 1, 9, 10, 99, 100, 500, 998, 999]) samples.push(base + second * 1000 + ms + round);
    for (const ms of samples) {
      const expected = new Date(ms).toISOString();
      expect(isoDate(ms), String(ms)).toBe(expected);
      expect(jsonIsoDate(ms), String(ms)).toBe(JSON.stringify(expected));
    }
    expect(jsonIsoDate(-1)).toBe(JSON.stringify(new Date(-1).toISOString()));
  });
});

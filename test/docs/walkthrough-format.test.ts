import { describe, expect, it } from 'vitest';
import { matchJson, matchText, parseWalkthrough } from './walkthrough-format.js';

const fence = '```';

describe('walk-through format', () => {
  it('reads a step: command, status line, answer', () => {
    const md = [
      'Text.',
      `${fence}sh`,
      'curl -H "X-APIKey: $APIKEY" \\',
      '  "$BASE/x"',
      fence,
      '→ 200, the item',
      `${fence}json`,
      '{ "id": "$ID" }',
      fence,
      `${fence}yaml`,
      'a: 1',
      fence,
      `${fence}sh`,
      'npm start',
      fence,
    ].join('\n');
    expect(parseWalkthrough(md)).toEqual([
      {
        line: 3,
        command: 'curl -H "X-APIKey: $APIKEY" \\\n  "$BASE/x"',
        status: 200,
        answer: { kind: 'json', value: { id: '$ID' } },
      },
    ]);
  });

  it('refuses a curl block without a status line or an answer', () => {
    expect(() => parseWalkthrough(`${fence}sh\ncurl "$BASE"\n${fence}\n\nSome text.\n`)).toThrow(
      /line 2: a curl command without a status line/,
    );
    expect(() => parseWalkthrough(`${fence}sh\ncurl "$BASE"\n${fence}\n→ 200\n`)).toThrow(/no answer block/);
    expect(() => parseWalkthrough(`${fence}sh\ncurl "$BASE"\n${fence}\n→ 200\n${fence}yaml\na: 1\n${fence}\n`)).toThrow(
      /`yaml`, not json or text/,
    );
    expect(() =>
      parseWalkthrough(`${fence}sh\ncurl "$BASE"\n${fence}\n→ 200\n${fence}json\n{nope}\n${fence}\n`),
    ).toThrow(/not JSON/);
  });

  it('captures placeholders and then holds them to their value', () => {
    const first = matchJson(
      { id: '$ID', n: '$N', url: '$BASE/items/$ID' },
      { id: 'a1', n: 5, url: 'http://h/items/a1' },
      { BASE: 'http://h' },
    );
    expect(first).toEqual({ problems: [], captured: { ID: 'a1', N: '5' } });
    expect(matchJson({ id: '$ID' }, { id: 'a2' }, { ID: 'a1' }).problems).toHaveLength(1);
    expect(matchJson({ url: '$BASE/x' }, { url: 'http://other/x' }, { BASE: 'http://h' }).problems).toHaveLength(1);
  });

  it('matches timestamps, UUIDs and epoch milliseconds by their kind only', () => {
    const exp = { at: '2026-01-01T00:00:00.000Z', id: '6f1c2b0e-0000-4000-8000-000000000000', exp: 1795763772473 };
    expect(
      matchJson(
        exp,
        { at: '2027-05-06T07:08:09.123Z', id: '0a1b2c3d-1111-4222-9333-444455556666', exp: 1800000000000 },
        {},
      ).problems,
    ).toEqual([]);
    expect(matchJson(exp, { at: 'yesterday', id: 'x', exp: 5 }, {}).problems).toHaveLength(3);
  });

  it('compares members in any order, and exactly unless "..." allows more', () => {
    expect(matchJson({ a: 1, b: 2 }, { b: 2, a: 1 }, {}).problems).toEqual([]);
    expect(matchJson({ a: 1 }, { a: 1, b: 2 }, {}).problems).toEqual(['$.b: not expected (2)']);
    expect(matchJson({ a: 1, '...': '...' }, { a: 1, b: 2 }, {}).problems).toEqual([]);
    expect(matchJson([1, '...'], [1, 2, 3], {}).problems).toEqual([]);
    expect(matchJson([1, 2], [1, 2, 3], {}).problems).toHaveLength(1);
    expect(matchJson({ a: 1, b: 3 }, { a: 1, b: 2 }, {}).problems).toEqual(['$.b: expected 3, got 2']);
  });

  it('compares text answers line by line', () => {
    expect(
      matchText(
        'id: $EV\ndata: {"at":"2026-01-01T00:00:00.000Z"}\n',
        'id: 7\ndata: {"at":"2026-03-01T10:00:00.000Z"}',
        {},
      ),
    ).toEqual({
      problems: [],
      captured: { EV: '7' },
    });
    expect(matchText('a\nb', 'a\nc', {}).problems).toHaveLength(1);
  });
});

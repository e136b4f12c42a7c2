// The SDK's Server-Sent Events parser and back-off, as pure logic: line endings, chunk boundaries anywhere, ids
// kept across events, comments and retry, and the reconnect waits.
import { describe, expect, it } from 'vitest';
import { BACKOFF_MAX_MS, backoffDelay, SseParser, type SseMessage } from '../../sdk/src/index.js';

function parse(chunks: string[], lastEventId?: string) {
  const events: SseMessage[] = [];
  const retries: number[] = [];
  const comments: string[] = [];
  const parser = new SseParser(
    { onEvent: (e) => events.push(e), onRetry: (ms) => retries.push(ms), onComment: (c) => comments.push(c) },
    lastEventId,
  );
  for (const c of chunks) parser.push(c);
  return { events, retries, comments, parser };
}

const STREAM =
  'retry: 3000\n\n: heartbeat\n\nid: 1\nevent: notification\ndata: {"a":1}\n\n' +
  'data: line one\ndata: line two\n\nid: 2\nevent: reset\ndata: {}\n\nevent: ignored-without-data\n\n';

describe('SseParser', () => {
  it('reads events, ids, multi-line data, comments and retry', () => {
    const { events, retries, comments } = parse([STREAM]);
    expect(events).toEqual([
      { event: 'notification', data: '{"a":1}', id: '1' },
      { event: 'message', data: 'line one\nline two', id: '1' },
      { event: 'reset', data: '{}', id: '2' },
    ]);
    expect(retries).toEqual([3000]);
    expect(comments).toEqual(['heartbeat']);
  });

  it('gives the same events whatever the chunking and line endings (LF, CRLF, CR)', () => {
    const expected = parse([STREAM]).events;
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = STREAM.replace(/\n/g, eol);
      for (let size = 1; size <= 7; size++) {
        const chunks: string[] = [];
        for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
        expect(parse(chunks).events, `eol ${JSON.stringify(eol)} size ${size}`).toEqual(expected);
      }
    }
  });

  it('drops a leading BOM, strips one space after the colon, ignores unknown fields and ids with NUL', () => {
    const { events } = parse(['\uFEFFdata:no space\n', 'data:  two spaces\nfoo: bar\nid: a\0b\n\n']);
    expect(events).toEqual([{ event: 'message', data: 'no space\n two spaces', id: undefined }]);
  });

  it('keeps the last event id given at the start until the stream sets another', () => {
    const { events, parser } = parse(['data: x\n\nid: 9\ndata: y\n\n'], '5');
    expect(events.map((e) => e.id)).toEqual(['5', '9']);
    expect(parser.lastEventId).toBe('9');
  });

  it('does not dispatch a frame that is not finished by a blank line', () => {
    expect(parse(['id: 1\ndata: x\n']).events).toEqual([]);
  });
});

describe('backoffDelay', () => {
  it('starts at 0.2 s, doubles up to 5 s, and is jittered to between half and all of it', () => {
    const top = (n: number) => backoffDelay(n, () => 1);
    const bottom = (n: number) => backoffDelay(n, () => 0);
    expect([0, 1, 2, 3, 4, 5, 6, 50].map(top)).toEqual([200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
    expect(bottom(0)).toBe(100);
    expect(bottom(9)).toBe(BACKOFF_MAX_MS / 2);
    for (let i = 0; i < 100; i++) {
      const d = backoffDelay(3);
      expect(d).toBeGreaterThanOrEqual(800);
      expect(d).toBeLessThanOrEqual(1600);
    }
  });
});

// The proxy's header rules as pure functions: the Forwarded header it writes (RFC 7239) and which Set-Cookie lines of
// an instance reach the caller; and the upstream path's shortcut past the URL parser. The same rules over real
// sockets are in flow-proxy.test.ts.
import { describe, expect, it } from 'vitest';
import { forwardedHeader } from '../../src/modules/flow/forwarded-header.js';
import { parseFlowTarget, parsedUpstreamPath, upstreamPath } from '../../src/modules/flow/flow-target.js';
import { runs } from '../helpers/thorough.js';
import { OwnCookies } from '../../src/modules/flow/upstream-cookies.js';

describe('Forwarded (RFC 7239)', () => {
  it.each([
    [{ ip: '192.0.2.60', proto: 'http', host: 'example.com' }, 'for=192.0.2.60;proto=http;host=example.com'],
    [
      { ip: '192.0.2.60', proto: 'https', host: 'example.com:8443' },
      'for=192.0.2.60;proto=https;host="example.com:8443"',
    ],
    [{ ip: '::1', proto: 'http', host: '[::1]:8080' }, 'for="[::1]";proto=http;host="[::1]:8080"'],
    [{ ip: '::ffff:127.0.0.1', proto: 'http', host: 'a' }, 'for="[::ffff:127.0.0.1]";proto=http;host=a'],
    [{ ip: '2001:db8:cafe::17', proto: 'http', host: undefined }, 'for="[2001:db8:cafe::17]";proto=http'],
    [{ ip: 'not-an-address', proto: 'http', host: 'a' }, 'for=unknown;proto=http;host=a'],
    [{ ip: '10.0.0.1', proto: 'http', host: 'we"ird\\host' }, 'for=10.0.0.1;proto=http;host="we\\"ird\\\\host"'],
  ])('%o -> %s', (hop, expected) => {
    expect(forwardedHeader(hop)).toBe(expected);
  });
});

describe("an instance's Set-Cookie lines", () => {
  const own = new OwnCookies(['svc_session']);

  it.each([
    'svc_session=evil',
    'svc_session=evil; Path=/; HttpOnly',
    'SVC_Session=evil',
    '  svc_session\t=evil',
    '__Host-svc_session=evil; Secure; Path=/',
    '__HOST-svc_session=evil; Secure; Path=/',
    '__Secure-svc_session=evil; Secure',
    '=svc_session=evil',
    '=evil',
    'svc_session',
    '',
  ])('drops %j', (line) => {
    expect(own.filter(line)).toEqual([]);
  });

  it.each([
    ['theme=dark; Path=/; HttpOnly', 'theme=dark; Path=/; HttpOnly'],
    ['svc_session2=x', 'svc_session2=x'],
    ['__Host-other=x; Secure; Path=/', '__Host-other=x; Secure; Path=/'],
    ['keep=1; Domain=example.com; Path=/', 'keep=1; Path=/'],
    ['keep=1;domain=.example.com;Secure', 'keep=1;Secure'],
    ['keep=1; Path=/; DOMAIN = example.com', 'keep=1; Path=/'],
    ['x=domain=1; Path=/', 'x=domain=1; Path=/'],
  ])('keeps %j as %j', (line, expected) => {
    expect(own.filter(line)).toEqual([expected]);
  });

  it('filters each line of several and keeps their order', () => {
    expect(own.filter(['a=1', 'svc_session=evil', 'b=2; Domain=x.example'])).toEqual(['a=1', 'b=2']);
  });
});

describe('the upstream path without the URL parser', () => {
  const bases = [
    'http://u:1',
    'http://u:1/',
    'http://u:1/base',
    'http://u:1/base/',
    'http://u:1/a/b//',
    'http://u/a%2Fb/c',
  ].map((b) => new URL(b));
  const check = (rawUrl: string) => {
    const parsed = parseFlowTarget(rawUrl);
    if (!parsed.ok) return 'refused';
    for (const base of bases) {
      const expected = parsedUpstreamPath(base, base.pathname.replace(/\/+$/, ''), parsed.target);
      expect(upstreamPath(base, parsed.target), `${base.href} ${rawUrl}`).toBe(expected);
    }
    return 'checked';
  };

  it.each([
    '/cxf/svc-flow/flow/main',
    '/cxf/svc-flow/flow/main/',
    '/cxf/svc-flow/flow/main?x=1',
    '/cxf/svc-flow/flow/main/tasks/1',
    '/cxf/svc-flow/flow/main/tasks/1?a=1&b=%20c&d',
    "/cxf/svc-flow/flow/main/it's/(1)?q='x'",
    '/cxf/svc-flow/flow/main/a?q=a"b<c>d',
    '/cxf/svc-flow/flow/main/a?q=a\\b^c`d{e}f|g',
    '/cxf/svc-flow/flow/main/a?q=\u00e9',
    '/cxf/svc-flow/flow/main/%61b?x=%zz',
    '/cxf/svc-flow/flow/main?targetUrl=%2Fecho%2Fq%3Fx%3Da%3Bb',
    '/cxf/svc-flow/flow/main?targetUrl=/echo/a%20b&y=2',
  ])('%s: the same path as through the parser', (rawUrl) => {
    expect(check(rawUrl)).toBe('checked');
  });

  // Random targets over the characters that matter to the parser (percent, quote, dot, slash, non-ASCII...): every
  // accepted one must come out the same both ways. THOROUGH runs 20 times as many.
  it('random targets: the same path as through the parser', () => {
    const alphabet = [
      'a',
      'Z',
      '0',
      '-',
      '.',
      '..',
      '/',
      '//',
      '%2e',
      '%2F',
      '%',
      '%zz',
      "'",
      '"',
      '<',
      '`',
      '{',
      '|',
      '\\',
      ';',
      '=',
      '&',
      '?',
      '+',
      '@',
      ':',
      '~',
      '!',
      '*',
      '(',
      ' ',
      '\u00e9',
      '#',
      '$',
      ',',
      '^',
      '[',
      ']',
    ];
    let seed = 47;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const text = (n: number) =>
      Array.from({ length: Math.floor(next() * n) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    const outcomes = { checked: 0, refused: 0 };
    for (let i = 0; i < runs(2000, 40000); i++) {
      const path = next() < 0.85 ? `/${text(8)}` : '';
      const query = next() < 0.5 ? `?${text(8)}` : '';
      outcomes[check(`/cxf/svc-flow/flow/main${path}${query}`)]++;
    }
    // Both outcomes are reached: accepted targets (plain ones take the shortcut, the others the parser) and refused.
    expect(outcomes.checked).toBeGreaterThan(200);
    expect(outcomes.refused).toBeGreaterThan(200);
  });
});

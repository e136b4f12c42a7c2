// The proxy's header rules as pure functions: the Forwarded header it writes (RFC 7239) and which Set-Cookie lines of
// an instance reach the caller. The same rules over real sockets are in flow-proxy.test.ts.
import { describe, expect, it } from 'vitest';
import { forwardedHeader } from '../../src/modules/flow/forwarded-header.js';
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

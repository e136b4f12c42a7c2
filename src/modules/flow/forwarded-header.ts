import { isIP } from 'node:net';

/** The hop the proxy describes: the caller's address, scheme and Host header, as X-Forwarded-For/-Proto/-Host carry them. */
export interface ForwardedHop {
  ip: string;
  proto: string;
  host: string | undefined;
}

/** RFC 9110 token characters: such a value goes unquoted. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The `Forwarded` header (RFC 7239) for one hop: `for=192.0.2.1;proto=https;host=example.com`. An IPv6 address is
 * quoted in brackets (`for="[::1]"`), a value that is not a token (a Host with a port) is quoted; an address that is
 * none (a trusted proxy's odd X-Forwarded-For) is `unknown`, the RFC's word for it.
 */
export function forwardedHeader(hop: ForwardedHop): string {
  const version = isIP(hop.ip);
  const node = version === 4 ? hop.ip : version === 6 ? `"[${hop.ip}]"` : 'unknown';
  const pairs = [`for=${node}`, `proto=${value(hop.proto)}`];
  if (hop.host) pairs.push(`host=${value(hop.host)}`);
  return pairs.join(';');
}

function value(text: string): string {
  return TOKEN.test(text) ? text : `"${text.replace(/[\\"]/g, '\\$&')}"`;
}

import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { AppError } from '../errors/app-error.js';
import { ERRORS } from '../errors/error-catalogue.js';

export interface MetricsAccessConfig {
  token?: string;
  allow: readonly string[];
}

/**
 * Who may read /metrics: a caller with the configured bearer token (compared in constant time, as SHA-256 digests so
 * that lengths do not show either), or a connection from an allowed address. Deny otherwise: 401 with a token
 * configured (it could still authenticate), else 403. The address is the TCP peer, never a forwarded header: a
 * scraper reaches an instance directly, and a header would let anyone behind a trusted proxy claim an address.
 */
export function metricsAccess(
  config: MetricsAccessConfig,
): (remoteAddress: string | undefined, authorization: string | undefined) => AppError | undefined {
  const allowed = addressList(config.allow);
  const digest = (s: string) => createHash('sha256').update(s).digest();
  const expected = config.token === undefined ? undefined : digest(config.token);
  return (remoteAddress, authorization) => {
    if (expected) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
      if (match && timingSafeEqual(digest(match[1]), expected)) return undefined;
    }
    if (remoteAddress && isAllowed(allowed, remoteAddress)) return undefined;
    if (expected)
      return new AppError(
        401,
        {
          messageKey: 'CORE_ERROR_METRICS_UNAUTHORIZED',
          name: 'UNAUTHORIZED',
          message: 'The metrics need the configured bearer token or an allowed address',
        },
        { headers: { 'www-authenticate': 'Bearer realm="metrics"' } },
      );
    return ERRORS.forbidden('The metrics are not readable from this address');
  };
}

/** The configured addresses and CIDR ranges; throws on one that is none (the config's pattern lets few through). */
function addressList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const type = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
    const max = type === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (!type || !Number.isInteger(prefix) || prefix < 0 || prefix > max)
      throw new Error(`metrics.allow: ${entry} is not an address or a CIDR range`);
    list.addSubnet(address, prefix, type);
  }
  return list;
}

function isAllowed(list: BlockList, address: string): boolean {
  // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d; the ranges say a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return list.check(mapped[1], 'ipv4') || list.check(address, 'ipv6');
  return list.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
}

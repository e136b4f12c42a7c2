// Which Set-Cookie lines of an instance's answer reach the caller. The proxy answers on the platform's origin, so
// every cookie an instance sets is set for the platform: one named like a platform cookie would replace the caller's
// session (session fixation by any instance). Such lines are dropped; the others pass, host-only.

/** `__Host-` and `__Secure-` name the same cookie to us: browsers only add rules to it (matched case-insensitively). */
const PREFIX = /^__(?:host|secure)-/i;
const DOMAIN_ATTRIBUTE = /^\s*domain\s*=/i;

/** The platform's own cookie names (the session cookie), as the policy compares them. */
export class OwnCookies {
  private readonly names: ReadonlySet<string>;

  constructor(names: readonly string[]) {
    this.names = new Set(names.map(comparable));
  }

  /**
   * The lines to pass on. Dropped: a cookie named as one of ours, in any case and with or without a `__Host-` or
   * `__Secure-` prefix, and a cookie without a name (`=svc_session=x`, or no `=` at all), which a browser sends back
   * as its bare value, so that it would arrive as `svc_session=x`. Kept: the rest, without their Domain attribute, so
   * that an instance cannot set a cookie for other hosts of the platform's domain.
   */
  filter(lines: string | string[]): string[] {
    const out: string[] = [];
    for (const line of typeof lines === 'string' ? [lines] : lines) {
      const parts = line.split(';');
      const eq = parts[0].indexOf('=');
      // Browsers take the name up to the first `=` and trim spaces and tabs around it (RFC 6265bis 5.6).
      const name = eq < 0 ? '' : parts[0].slice(0, eq).trim();
      if (name === '' || this.names.has(comparable(name))) continue;
      out.push(parts.filter((part, i) => i === 0 || !DOMAIN_ATTRIBUTE.test(part)).join(';'));
    }
    return out;
  }
}

function comparable(name: string): string {
  return name.replace(PREFIX, '').toLowerCase();
}

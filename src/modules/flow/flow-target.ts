// Where a proxied call goes, judged on the raw request target (decisions.md sections 8 and 11): before any URL
// normalisation, so that what is checked is exactly what is forwarded.
export const FLOW_PREFIX = '/cxf/svc-flow/flow/';

export interface FlowTarget {
  instanceId: string;
  /** The path to append to the instance URL, as received (percent-encoding kept); '' for the instance URL itself. */
  path: string;
  /** The query to forward, as received, without `targetUrl`; '' when none. */
  query: string;
}

export type TargetCheck = { ok: true; target: FlowTarget } | { ok: false; reason: string };

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const ENCODED_CONTROL = /%(?:[01][0-9a-f]|7f)/i;
/** How many rounds of percent-decoding are looked through (`%252e` is `%2e` is `.`). */
const DECODE_ROUNDS = 4;

/** Splits and checks the raw target of a request to the flow endpoints. */
export function parseFlowTarget(rawUrl: string): TargetCheck {
  if (!rawUrl.startsWith(FLOW_PREFIX)) return fail('not a flow path');
  const q = rawUrl.indexOf('?');
  const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const rawQuery = q < 0 ? '' : rawUrl.slice(q + 1);
  const rest = rawPath.slice(FLOW_PREFIX.length);
  const slash = rest.indexOf('/');
  const rawInstance = slash < 0 ? rest : rest.slice(0, slash);
  const pathTarget = slash < 0 ? '' : rest.slice(slash);
  const instanceId = rawInstance.includes('%') ? decodeOnce(rawInstance) : rawInstance;
  if (!instanceId || CONTROL.test(instanceId)) return fail('missing or unreadable instance id');

  let targetUrl: string | undefined;
  const forwarded: string[] = [];
  for (const pair of rawQuery ? rawQuery.split('&') : []) {
    const eq = pair.indexOf('=');
    const name = decodeOnce((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    if (name === 'targetUrl') {
      if (targetUrl !== undefined) return fail('targetUrl given twice');
      const value = decodeOnce((eq < 0 ? '' : pair.slice(eq + 1)).replace(/\+/g, ' '));
      if (value === undefined) return fail('targetUrl is not valid percent-encoding');
      targetUrl = value;
    } else forwarded.push(pair);
  }
  if (targetUrl !== undefined && pathTarget !== '') return fail('give targetPath or targetUrl, not both');
  // targetUrl arrives decoded once (it is a query value); it is forwarded as its own text, which must itself be a
  // plain path: the same rules apply to it as to a targetPath.
  const path = targetUrl ?? pathTarget;
  // Control characters in the query, raw or percent-encoded, whether or not the rest of it decodes as UTF-8.
  const problem =
    checkPath(path) ??
    (rawQuery && (CONTROL.test(rawQuery) || ENCODED_CONTROL.test(rawQuery))
      ? 'control characters in the query'
      : undefined);
  if (problem) return fail(problem);
  return { ok: true, target: { instanceId, path, query: forwarded.length ? forwarded.join('&') : '' } };
}

/**
 * Paths that need no decoding to judge: no percent-encoding, colon, semicolon, backslash, control character or
 * fragment, no `//` at the start and no `.` or `..` segment. Most calls are such; the rest take the full check.
 */
const PLAIN_PATH = /^(?!\/\/)(?:\/(?!\.\.?(?:\/|$))[\w\-.~!$&'()*+,=@]*)+$/;

/** Undefined when `path` is a plain absolute path that stays where it is appended; else why not. */
export function checkPath(path: string): string | undefined {
  if (path === '' || PLAIN_PATH.test(path)) return undefined;
  if (!path.startsWith('/')) return 'the target must start with /';
  if (path.includes('#')) return 'a fragment is not a path';
  let text = path;
  // The path without the query a targetUrl may carry, decoded as many rounds as the whole.
  let pathOnly = path.split('?')[0];
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    // Path parameters (`/..;/x`, `/a;jsessionid=1/b`), raw or encoded: servlet containers (which process engines
    // often run in) cut them off a segment before resolving `..`, so `..;` would climb out of the instance URL.
    if (pathOnly.includes(';')) return 'path parameters (;) in the target';
    // Protocol-relative (`//host`), also once decoded: an upstream that decodes before it redirects would leave.
    if (text.startsWith('//')) return 'the target must not start with //';
    if (CONTROL.test(text)) return 'control characters in the target';
    if (text.includes('\\')) return 'backslashes in the target';
    if (text.split('/').some((segment) => segment === '.' || segment === '..')) return 'dot segments in the target';
    if (/^[a-z][a-z0-9+.-]*:/i.test(text.replace(/^\/+/, ''))) return 'an absolute URL in the target';
    const next = decodeOnce(text);
    if (next === undefined) return 'the target is not valid percent-encoded UTF-8';
    if (next === text) return undefined;
    text = next;
    pathOnly = decodeOnce(pathOnly) ?? pathOnly;
  }
  return 'the target is encoded too many times';
}

function decodeOnce(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function fail(reason: string): TargetCheck {
  return { ok: false, reason };
}

/**
 * A query the URL parser leaves as it is: printable ASCII but for what it percent-encodes in the query of an http(s)
 * URL (space, `"`, `#`, `'`, `<`, `>`); `%` sequences it never touches.
 */
const PLAIN_QUERY = /^[!$%&()*+,\-./0-9:;=?@A-Z[\\\]^_`a-z{|}~]*$/;

/**
 * The upstream path: the instance URL's path with the target appended, and the query. Checked once more on the
 * parsed result, so that nothing the URL parser makes of it leaves the instance URL. A plain path (see PLAIN_PATH)
 * with a plain query is what the parser would answer as it is, appended to a path the parser made (`base`), so it
 * skips the parse: that is the common call, and a URL parse was a tenth of the proxy's own work in the profile.
 */
export function upstreamPath(base: URL, target: FlowTarget): string | undefined {
  const basePath = withoutTrailingSlashes(base.pathname);
  if ((target.path === '' || PLAIN_PATH.test(target.path)) && PLAIN_QUERY.test(target.query))
    return `${`${basePath}${target.path}` || '/'}${target.query ? `?${target.query}` : ''}`;
  return parsedUpstreamPath(base, basePath, target);
}

/** upstreamPath through the URL parser: any target that passed parseFlowTarget. Exported for the equivalence test. */
export function parsedUpstreamPath(base: URL, basePath: string, target: FlowTarget): string | undefined {
  const joined = `${basePath}${target.path}` || '/';
  const url = new URL(`${base.origin}${joined}${target.query ? `?${target.query}` : ''}`);
  if (url.origin !== base.origin) return undefined;
  if (basePath && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return undefined;
  return `${url.pathname}${url.search}`;
}

function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  return end === path.length ? path : path.slice(0, end);
}

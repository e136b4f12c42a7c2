// Schema-driven fuzzing: every operation of the OpenAPI document (so an endpoint is covered the day it lands) gets
// generated requests, valid ones from its schemas and mutations of them, with every credential kind and none.
// Asserted for each: no 5xx but the spec's own; every error is the error object; no stack, SQL or path in an answer;
// a failed request changed no row; the app still answers. Knobs: FUZZ_RUNS (requests per operation and engine,
// default 12, 50 under THOROUGH=1: more values, credentials and mutations per operation), FUZZ_SEED (default fixed, so
// CI is repeatable). fast-check prints the failing seed and path. The operations are fuzzed in CHUNKS tests, one after
// the other on the same app, so that each test stays far inside its time limit on a busy machine.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, login, startTestApp, type SessionCredentials, type TestApp } from '../helpers/test-app.js';
import { arbitraryFromSchema, type JsonSchema } from './schema-arbitrary.js';
import { runs } from '../helpers/thorough.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? runs(12, 50));
const CHUNKS = 4;
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const KEY = 'k-fuzz-admin-0123456789';

/** Rows that change on failed requests by design: the audit log and the credential throttle count failures, and every
 * authenticated call slides its session's expiry. */
const EXCLUDED_TABLES = new Set(['audit_log', 'credential_throttle', 'kysely_migration', 'kysely_migration_lock']);
const EXCLUDED_COLUMNS: Record<string, string[]> = { sessions: ['expires_on'], feed_instances: ['seen_on'] };

/** Answers the spec itself gives 500 for: a storage write whose body is not JSON. */
const specOwn500 = (url: string, body: any) =>
  url.startsWith('/cxf/svc-core/storage/') && body?.error?.messageKey === 'CORE_ERROR_INVALID_JSON';
/** The notification API's 503 while its tenant is in maintenance (a fuzzed request may switch it on). */
const specOwn503 = (url: string, body: any) =>
  url.startsWith('/cxf/svc-core/notification') && body?.error?.messageKey === 'NOTIFICATION_ERROR_MAINTENANCE';
/** Streams (Server-Sent Events) never answer whole; their refusals and resumption are tested in test/notifications. */
const isStream = (path: string) => path.endsWith('/stream');

const LEAKS = [
  /node_modules/,
  /\/work\//,
  /\.(?:ts|js|mjs):\d+/,
  /\n\s+at [\w.<>]+ \(/,
  /\bSELECT\b.+\bFROM\b/i,
  /\bINSERT INTO\b/i,
  /SQLITE_/,
  /syntax error at/i,
  /violates .* constraint/i,
  /relation ".*" does not exist/i,
];

interface Operation {
  method: string;
  path: string;
  params: Array<{ in: string; name: string; schema: JsonSchema; required?: boolean }>;
  body?: { type: string; schema: JsonSchema };
}

interface FuzzRequest {
  credential: 'none' | 'apiKey' | 'badApiKey' | 'session' | 'sessionNoCsrf' | 'bearer' | 'badBearer';
  pathParams: Record<string, string>;
  query: Array<[string, string]>;
  body:
    | { kind: 'none' }
    | { kind: 'json'; value: unknown }
    | { kind: 'text'; text: string; contentType: string }
    | { kind: 'bytes'; bytes: Buffer; contentType: string };
  extraHeaders: Record<string, string>;
}

function operations(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, byMethod] of Object.entries<any>(doc.paths)) {
    if (path.startsWith('/docs') || isStream(path)) continue;
    for (const [method, op] of Object.entries<any>(byMethod)) {
      const content = op.requestBody?.content ?? {};
      const type = Object.keys(content)[0];
      ops.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: type ? { type, schema: content[type].schema ?? {} } : undefined,
      });
    }
  }
  return ops;
}

/** Text that databases, parsers and logs treat specially. */
const hostileText = fc.constantFrom(
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '\ufeff\u202e',
  '\\',
  '%s%n',
  "' or 1=1 --",
  '</script>',
  '\r\nX-Injected: 1',
);

const weirdText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    '',
    '..',
    '.',
    '%2e%2e',
    '%00',
    'a\u0000b',
    '\ud800',
    '__proto__',
    'constructor',
    "'; drop table users; --",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a hostile input that looks like a template placeholder
    '${x}',
    '%ff',
    'a/b',
    '-1',
    '1e309',
    'NaN',
  ),
  fc.integer({ min: 1000, max: 5000 }).map((n) => 'x'.repeat(n)),
);

/** Percent-encoding that also carries lone surrogates, as the (invalid UTF-8) bytes a broken client would send. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...text]
      .map((ch) => {
        const c = ch.charCodeAt(0);
        if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff)
          return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join('');
        return encodeURIComponent(ch);
      })
      .join('');
  }
}

const NUMBER_SLOT = '__fuzz_number__';

/** The value with its `index`-th leaf (modulo the number of leaves, depth first) replaced; a leaf itself is replaced. */
function replaceLeaf(value: unknown, index: number, replacement: unknown): unknown {
  const leaves: Array<(x: unknown) => void> = [];
  const root = { v: structuredClone(value) as unknown };
  const walk = (holder: any, key: string | number) => {
    const x = holder[key];
    if (x !== null && typeof x === 'object') {
      for (const k of Array.isArray(x) ? x.keys() : Object.keys(x)) walk(x, k);
    } else leaves.push((r) => (holder[key] = r));
  };
  walk(root, 'v');
  if (leaves.length) leaves[index % leaves.length](replacement);
  return root.v;
}

/** A JSON text nested `depth` levels deep. */
const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

function bodyArbitrary(op: Operation): fc.Arbitrary<FuzzRequest['body']> {
  if (!op.body) {
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant({ kind: 'none' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'text' as const, text: '', contentType: 'application/json' }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => ({ kind: 'json' as const, value })) },
    );
  }
  const valid = arbitraryFromSchema(op.body.schema);
  if (op.body.type === 'application/x-www-form-urlencoded') {
    const form = valid.map((v) =>
      new URLSearchParams(
        Object.entries((v ?? {}) as Record<string, unknown>).map(([k, x]): [string, string] => [k, String(x)]),
      ).toString(),
    );
    return fc.oneof(
      form.map((text) => ({ kind: 'text' as const, text, contentType: op.body!.type })),
      fc
        .dictionary(weirdText, weirdText, { maxKeys: 4 })
        .map((d) => ({ kind: 'text' as const, text: new URLSearchParams(d).toString(), contentType: op.body!.type })),
      valid.map((value) => ({ kind: 'json' as const, value })),
    );
  }
  // A valid body with one leaf (string, number, boolean, null) replaced: where schema checks pass, the value reaches
  // the service and the database, so this is what finds what the database refuses.
  const leafSwapped = fc
    .tuple(valid, fc.nat(), fc.oneof(hostileText, weirdText))
    .map(([v, i, text]) => replaceLeaf(v, i, text));
  const numberSwapped = fc
    .tuple(
      valid,
      fc.nat(),
      fc.constantFrom('1e309', '-1e309', '1e-400', '123456789012345678901234567890', '-0', '5e-324'),
    )
    .map(([v, i, literal]) => ({
      kind: 'text' as const,
      text: JSON.stringify(replaceLeaf(v, i, NUMBER_SLOT)).replace(`"${NUMBER_SLOT}"`, literal),
      contentType: 'application/json',
    }));
  const mutated = valid.chain((v) => {
    const obj = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    const keys = Object.keys(obj);
    return fc.oneof(
      // a field removed, a field of the wrong type, extra fields
      keys.length ? fc.constantFrom(...keys).map((k) => ({ ...obj, [k]: undefined })) : fc.constant(obj),
      keys.length
        ? fc.tuple(fc.constantFrom(...keys), fc.jsonValue({ maxDepth: 2 })).map(([k, x]) => ({ ...obj, [k]: x }))
        : fc.constant(obj),
      fc.dictionary(weirdText, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }).map((extra) => ({ ...obj, ...extra })),
    );
  });
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((value) => ({ kind: 'json' as const, value })) },
    { weight: 3, arbitrary: mutated.map((value) => ({ kind: 'json' as const, value })) },
    { weight: 3, arbitrary: leafSwapped.map((value) => ({ kind: 'json' as const, value })) },
    { weight: 2, arbitrary: numberSwapped },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => ({ kind: 'json' as const, value })) },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(
          '{"__proto__":{"polluted":true},"value":1}',
          '{"constructor":{"prototype":{"polluted":true}}}',
          '{"name":"a\\u0000b","value":"\\ud800"}',
          '{"value":1e309,"x":1e-400}',
          deep(5000),
          `{"value":${deep(100)}}`,
          '{"value":',
          'null',
          '',
          '[]',
          '"text"',
        )
        .map((text) => ({ kind: 'text' as const, text, contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1_100_000, max: 1_300_000 })
        .map((n) => ({ kind: 'text' as const, text: `{"value":"${'x'.repeat(n)}"}`, contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc.constant({
        kind: 'bytes' as const,
        bytes: Buffer.from([0x7b, 0x22, 0x76, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
        contentType: 'application/json',
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(
            'text/plain',
            'application/xml',
            'multipart/form-data; boundary=x',
            'application/x-www-form-urlencoded',
            'application/json; charset=latin1',
            'application/vnd.api+json',
          ),
        )
        .map(([value, contentType]) => ({ kind: 'text' as const, text: JSON.stringify(value ?? null), contentType })),
    },
  );
}

function requestArbitrary(op: Operation): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const pathArb = fc.record(
    Object.fromEntries(
      pathParams.map((p) => [
        p.name,
        fc.oneof(
          { weight: 3, arbitrary: arbitraryFromSchema(p.schema).map(String) },
          { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9-]{1,12}$/) },
          { weight: 2, arbitrary: weirdText },
        ),
      ]),
    ),
  ) as fc.Arbitrary<Record<string, string>>;
  const queryArb = fc.array(
    fc.oneof(
      ...(queryParams.length
        ? [
            fc
              .constantFrom(...queryParams)
              .chain((p) =>
                arbitraryFromSchema(p.schema).map(
                  (v) => [p.name, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string],
                ),
              ),
          ]
        : []),
      ...(queryParams.length ? [fc.tuple(fc.constantFrom(...queryParams.map((p) => p.name)), weirdText)] : []),
      fc.tuple(weirdText, weirdText),
    ),
    { maxLength: 4 },
  );
  return fc.record({
    credential: fc.constantFrom<FuzzRequest['credential']>(
      'none',
      'apiKey',
      'apiKey',
      'badApiKey',
      'session',
      'session',
      'sessionNoCsrf',
      'bearer',
      'badBearer',
    ),
    pathParams: pathArb,
    query: queryArb,
    body: bodyArbitrary(op),
    extraHeaders: fc.oneof(
      { weight: 5, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.constant({ 'x-long': 'h'.repeat(12_000) }) },
      { weight: 1, arbitrary: fc.constant({ 'content-length-mismatch': '1', 'x-csrf-token': 'x'.repeat(300) }) },
      { weight: 1, arbitrary: fc.constant({ accept: 'application/xml', 'accept-encoding': 'br;q=0, gzip;q=2, *' }) },
    ),
  });
}

describeEachEngine('fuzzing every OpenAPI operation', (engine) => {
  let t: TestApp;
  let ops: Operation[];
  let session: SessionCredentials;
  let bearer: string;

  const freshSession = async () => {
    session = await login(t, 'acme', 'fuzzer', 'fuzzer-secret-1');
  };

  beforeAll(async () => {
    t = await startTestApp(engine, {
      tenants: [
        {
          name: 'acme',
          users: [
            {
              loginName: 'fuzzer',
              password: 'fuzzer-secret-1',
              roles: ['ADMIN', 'FORMS_ADMIN', 'NOTIFICATION_ADMIN'],
              organisations: ['org1'],
            },
          ],
          apiKeys: [{ name: 'fuzz-admin', key: KEY, roles: ['ADMIN', 'FORMS_ADMIN', 'NOTIFICATION_ADMIN'] }],
        },
      ],
    });
    ops = operations((await t.request({ method: 'GET', url: '/docs/json' })).json());
    await freshSession();
    bearer = (
      await t.request({ method: 'POST', url: '/cxf/svc-core/authentication/token', headers: { 'x-apikey': KEY } })
    ).json().access_token;
  });
  afterAll(() => t.close());

  /** Every row of every table (those changed by design aside), as one digest. */
  async function snapshot(): Promise<string> {
    const db = t.database.db;
    const tables =
      t.database.dialect.name === 'sqlite'
        ? (
            await sql<{
              name: string;
            }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(
              db,
            )
          ).rows.map((r) => r.name)
        : (
            await sql<{
              name: string;
            }>`select table_name as name from information_schema.tables where table_schema = current_schema() order by table_name`.execute(
              db,
            )
          ).rows.map((r) => r.name);
    const hash = createHash('sha256');
    for (const table of tables) {
      if (EXCLUDED_TABLES.has(table)) continue;
      const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
      const lines = rows.map((row) => {
        for (const c of EXCLUDED_COLUMNS[table] ?? []) delete row[c];
        return JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
      });
      hash.update(`${table}\n${lines.sort().join('\n')}\n`);
    }
    return hash.digest('hex');
  }

  function credentialHeaders(c: FuzzRequest['credential']): Record<string, string> {
    switch (c) {
      case 'apiKey':
        return { 'x-apikey': KEY };
      case 'badApiKey':
        return { 'x-apikey': 'k-not-a-key' };
      case 'session':
        return { cookie: session.cookie, 'x-csrf-token': session.csrf };
      case 'sessionNoCsrf':
        return { cookie: session.cookie };
      case 'bearer':
        return { authorization: `Bearer ${bearer}` };
      case 'badBearer':
        return { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.' };
      default:
        return {};
    }
  }

  /** The digest of the rows after the last request; the answers seen per operation, over every chunk. */
  let before: string | undefined;
  const statuses = new Map<string, Set<number>>();

  it.each(Array.from({ length: CHUNKS }, (_, k) => k + 1))(
    `answers every generated request within the contract, and a failed one changes nothing (operations, part %i of ${CHUNKS})`,
    async (part) => {
      expect(ops.length).toBeGreaterThanOrEqual(20);
      before ??= await snapshot();
      const chunk = ops.slice(Math.floor(((part - 1) * ops.length) / CHUNKS), Math.floor((part * ops.length) / CHUNKS));
      for (const op of chunk) {
        await fc.assert(
          fc.asyncProperty(requestArbitrary(op), async (req) => {
            if (req.credential === 'session' || req.credential === 'sessionNoCsrf') {
              const alive = await t.request({
                method: 'GET',
                url: '/cxf/svc-core/authentication',
                headers: { cookie: session.cookie },
              });
              if (alive.statusCode !== 200) {
                await freshSession();
                before = await snapshot();
              }
            }
            const path = op.path.replace(/\{(\w+)\}/g, (_m, name) => encode(req.pathParams[name] ?? 'x'));
            const query = req.query.length
              ? `?${req.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`
              : '';
            const headers: Record<string, string> = { ...credentialHeaders(req.credential), ...req.extraHeaders };
            let payload: string | Buffer | undefined;
            if (req.body.kind === 'json') {
              payload = JSON.stringify(req.body.value ?? null);
              headers['content-type'] = 'application/json';
            } else if (req.body.kind === 'text') {
              payload = req.body.text;
              headers['content-type'] = req.body.contentType;
            } else if (req.body.kind === 'bytes') {
              payload = req.body.bytes;
              headers['content-type'] = req.body.contentType;
            }
            const url = `${path}${query}`;
            const res = await t.request({ method: op.method as any, url, headers, payload });
            const where = `${op.method} ${url.slice(0, 200)} (${req.credential}) -> ${res.statusCode} ${res.body.slice(0, 300)}`;
            statuses.set(
              `${op.method} ${op.path}`,
              (statuses.get(`${op.method} ${op.path}`) ?? new Set()).add(res.statusCode),
            );

            let body: any;
            if (res.statusCode >= 400) {
              expect(() => (body = JSON.parse(res.body)), where).not.toThrow();
              expect(Object.keys(body), where).toEqual(['error']);
              expect(typeof body.error.messageKey, where).toBe('string');
              expect(typeof body.error.code, where).toBe('number');
              expect(typeof body.error.name, where).toBe('string');
              expect(typeof body.error.message, where).toBe('string');
              expect(typeof body.error.properties, where).toBe('object');
              for (const leak of LEAKS) expect(leak.test(res.body), `${where}: answer matches ${leak}`).toBe(false);
            }
            if (res.statusCode >= 500) expect(specOwn500(url, body) || specOwn503(url, body), where).toBe(true);

            const after = await snapshot();
            if (res.statusCode >= 400) expect(after, `${where}: a failed request changed rows`).toBe(before);
            before = after;
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        );
      }
      // A part takes 1-4 s here at 12 runs; more runs (THOROUGH, FUZZ_RUNS) take proportionally longer.
    },
    Math.max(30_000, RUNS * 2_500),
  );

  it('is still up after the fuzzing, which reached past the front door', async () => {
    expect(statuses.size).toBe(ops.length);
    if (process.env.FUZZ_VERBOSE)
      for (const [op, seen] of statuses) console.log(engine, op, [...seen].sort().join(' '));
    // The service is still up and answering.
    expect((await t.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    // The fuzzer reached past the front door: some operations answered 2xx, some refused.
    const all = [...statuses.values()].flatMap((s) => [...s]);
    expect(all.some((s) => s < 300)).toBe(true);
    expect(all.some((s) => s >= 400 && s < 500)).toBe(true);
  });
});

// Absurd numbers in query strings (issue 40, finding 8): every integer query parameter of every operation in the
// OpenAPI document, with a valid credential so that the value itself is what gets judged. Query strings are text
// that may be read as numbers; what is no whole number in the parameter's range is 400 with the error object.
const ABSURD_NUMBERS = [
  '1e309',
  '-1e309',
  '1e20',
  'Infinity',
  '-Infinity',
  'NaN',
  '-1',
  '1.5',
  '2147483648',
  '',
  '0x80000000',
  '9007199254740993',
];
const ENGINE_USER = { name: 'eng-numbers', password: 'eng-numbers-pass-1' };

describeEachEngine('absurd numbers in query strings', (engine) => {
  let t: TestApp;
  let ops: Operation[];
  const engineBasic = `Basic ${Buffer.from(`${ENGINE_USER.name}:${ENGINE_USER.password}`).toString('base64')}`;

  beforeAll(async () => {
    t = await startTestApp(engine, {
      maintenance: false,
      tenants: [
        {
          name: 'acme',
          apiKeys: [
            { name: 'numbers-admin', key: KEY, roles: ['ADMIN', 'FORMS_ADMIN', 'NOTIFICATION_ADMIN', 'TENANT_ADMIN'] },
          ],
        },
      ],
      engine: { users: [{ ...ENGINE_USER, groups: [], roles: ['ops'] }] },
    });
    ops = operations((await t.request({ method: 'GET', url: '/docs/json' })).json());
  });
  afterAll(() => t.close());

  /** A request that passes every check but the one parameter: the right credential, a plain path. */
  const call = (op: { method: string; path: string }, query: Record<string, string>) => {
    const onEngine = op.path.startsWith('/engine/');
    const params = new URLSearchParams({ ...(onEngine ? { userType: 'processEngineUser' } : {}), ...query });
    return t.request({
      method: op.method as any,
      url: `${op.path.replace(/\{(\w+)\}/g, 'n1')}?${params}`,
      headers: onEngine ? { authorization: engineBasic } : { 'x-apikey': KEY },
    });
  };

  const expectRefused = (res: { statusCode: number; body: string }, where: string) => {
    expect(res.statusCode, `${where} -> ${res.statusCode} ${res.body.slice(0, 300)}`).toBe(400);
    const body = JSON.parse(res.body);
    expect(Object.keys(body), where).toEqual(['error']);
    expect(body.error, where).toMatchObject({
      code: 400,
      name: expect.any(String),
      messageKey: expect.any(String),
      message: expect.any(String),
      properties: expect.any(Object),
    });
  };

  it('refuses every absurd value of every integer query parameter with 400 and the error object', async () => {
    const integerParams = ops.flatMap((op) =>
      op.params.filter((p) => p.in === 'query' && p.schema.type === 'integer').map((p) => ({ op, name: p.name })),
    );
    const covered = new Set(integerParams.map(({ op, name }) => `${op.method} ${op.path} ${name}`));
    for (const expected of [
      'GET /cxf/svc-core/audit start',
      'GET /cxf/svc-core/audit limit',
      'GET /cxf/svc-core/notification start',
      'GET /cxf/svc-core/notification limit',
      'GET /cxf/svc-core/storage/store/{storeId} start',
      'GET /cxf/svc-core/storage/store/{storeId} limit',
      'GET /engine/rest/tasks start',
      'GET /engine/rest/tasks limit',
      'GET /engine/rest/reports start',
      'GET /engine/rest/reports limit',
    ]) {
      expect(covered, expected).toContain(expected);
    }
    for (const { op, name } of integerParams) {
      for (const value of ABSURD_NUMBERS) {
        expectRefused(await call(op, { [name]: value }), `${op.method} ${op.path}?${name}=${value}`);
      }
    }
  });

  it.each([
    ['/cxf/svc-core/audit?start=1e309'],
    ['/cxf/svc-core/audit?start=1e20'],
    ['/cxf/svc-core/audit?start=Infinity'],
    ['/cxf/svc-core/audit?limit=-Infinity'],
    ['/cxf/svc-core/notification?start=1e20'],
    ['/engine/rest/tasks?start=1e20'],
    ['/cxf/svc-core/storage/store/s1?limit=-Infinity'],
  ])('GET %s answers 400', async (url) => {
    const onEngine = url.startsWith('/engine/');
    const res = await t.request({
      method: 'GET',
      url: onEngine ? `${url}&userType=processEngineUser` : url,
      headers: onEngine ? { authorization: engineBasic } : { 'x-apikey': KEY },
    });
    expectRefused(res, url);
  });

  it('takes the largest valid values: 2^31-1 pages past the end, and a storage limit above 10000 is cut', async () => {
    const max = '2147483647';
    for (const path of [
      '/cxf/svc-core/audit',
      '/cxf/svc-core/notification',
      '/cxf/svc-core/storage/store/s1',
      '/engine/rest/tasks',
      '/engine/rest/reports',
    ]) {
      const res = await call({ method: 'GET', path }, { start: max });
      expect(res.statusCode, `${path}?start=${max} -> ${res.body.slice(0, 300)}`).toBe(200);
    }
    for (const path of ['/cxf/svc-core/notification', '/cxf/svc-core/storage/store/s1', '/engine/rest/tasks']) {
      const res = await call({ method: 'GET', path }, { limit: max });
      expect(res.statusCode, `${path}?limit=${max} -> ${res.body.slice(0, 300)}`).toBe(200);
    }
    const created = await t.request({
      method: 'POST',
      url: '/cxf/svc-core/storage/store/s1',
      headers: { 'x-apikey': KEY },
      payload: { value: 1, readRestriction: { user: 'numbers-admin' }, writeRestriction: { user: 'numbers-admin' } },
    });
    expect(created.statusCode).toBe(200);
    const cut = await call({ method: 'GET', path: '/cxf/svc-core/storage/store/s1' }, { limit: max, start: '0' });
    expect(cut.statusCode).toBe(200);
    expect(cut.json().items).toHaveLength(1);
  });
});

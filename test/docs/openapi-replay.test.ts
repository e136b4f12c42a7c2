// Every operation's example replayed against the real service, on both engines: the request built from the
// document's examples (path parameters, query, body) with the credential its security names, the answer's status
// documented and its body valid against the document's schema of that status. Each data management call's example
// (`DataManagement.<Context>.<method>.Call`) is replayed likewise and checked against its `.Answer`. Then a sample of
// error answers of every operation (no credential, a body of the wrong type) must be documented and valid too, and the
// live stream's events must carry the data their `x-events` schema says.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, login, startTestApp, type SessionCredentials, type TestApp } from '../helpers/test-app.js';
import { openSse } from '../helpers/sse-client.js';
import { startUpstream, type Upstream } from '../flow/upstream.js';
import {
  documentValidator,
  documentedResponse,
  operationsOf,
  parameterExample,
  type DocumentValidator,
  type Operation,
} from './openapi-kit.js';

const KEY = 'k-openapi-replay-0123456789';
const ENGINE_USER = { name: 'dm', password: 'dm-password-1' };
const DM_PATH = '/engine/servlet/UploadServlet/api_protocol';
const basic = `Basic ${Buffer.from(`${ENGINE_USER.name}:${ENGINE_USER.password}`).toString('base64')}`;

/** The order examples are replayed in: writes before reads before deletes; a deeper path's delete first. */
function replayOrder(a: Operation, b: Operation): number {
  const weight = (o: Operation) => {
    if (o.path === '/cxf/svc-core/authentication' && o.method === 'DELETE') return 9;
    if (o.path.endsWith('/sessions/all')) return 10;
    return { POST: 0, PUT: 1, PATCH: 1, GET: 2, DELETE: 3 }[o.method] ?? 5;
  };
  const depth = (o: Operation) => o.path.split('/').length;
  return weight(a) - weight(b) || (a.method === 'DELETE' ? depth(b) - depth(a) : 0);
}

/** The data management calls in the order their examples build on each other (assets before their template goes). */
function dmCallOrder(doc: any): Array<{ context: string; method: string; call: any }> {
  const calls = Object.entries<any>(doc.components.schemas)
    .filter(([name]) => /^DataManagement\.\w+\.\w+\.Call$/.test(name))
    .map(([name, schema]) => {
      const [, context, method] = name.split('.');
      return { context, method, call: schema.examples[0] };
    });
  const rank = (c: { context: string; method: string }) =>
    c.method === 'delete' ? (c.context === 'Asset' ? 100 : 101) : c.context === 'Template' ? 0 : 1;
  return calls
    .map((c, i) => ({ c, i }))
    .sort((x, y) => rank(x.c) - rank(y.c) || x.i - y.i)
    .map(({ c }) => c);
}

describeEachEngine('the OpenAPI examples replayed against the service', (engine) => {
  let t: TestApp;
  let upstream: Upstream;
  let doc: any;
  let ops: Operation[];
  let ajv: DocumentValidator;
  let session: SessionCredentials;
  let base: string;

  beforeAll(async () => {
    upstream = await startUpstream();
    t = await startTestApp(engine, {
      tenants: [
        {
          name: 'acme',
          users: [
            { loginName: 'alice', password: 'alice-secret-1', roles: ['USER'], organisations: ['org1'] },
            { loginName: 'bob', password: 'bob-secret-1', roles: ['USER'] },
          ],
          apiKeys: [
            {
              name: 'integration',
              key: KEY,
              roles: ['ADMIN', 'FORMS_ADMIN', 'NOTIFICATION_ADMIN', 'TENANT_ADMIN', 'SALES', 'PROCESS_USER_CHECK'],
            },
          ],
        },
      ],
      // alice (a session) administers the platform's tenants: API keys never do.
      identity: { platformAdmins: [{ tenant: 'acme', loginName: 'alice' }] },
      engine: {
        users: [{ ...ENGINE_USER, groups: ['DataManagement'], roles: [] }],
        processUserServer: { type: 'platform', tenant: 'acme' },
      },
      flow: { instances: [{ id: 'main', url: `${upstream.url}/base` }] },
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    doc = (await t.request({ method: 'GET', url: '/docs/json' })).json();
    ops = operationsOf(doc).sort(replayOrder);
    ajv = documentValidator(doc);
    session = await login(t, 'acme', 'alice', 'alice-secret-1');
  });
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });

  /** The headers of the credential the operation's security names first (API key, then session, then Basic). */
  function credentials(op: any, method: string): Record<string, string> {
    const names = (op.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s));
    if (names.includes('apiKey')) return { 'x-apikey': KEY };
    if (names.includes('session'))
      return method === 'GET' ? { cookie: session.cookie } : { cookie: session.cookie, 'x-csrf-token': session.csrf };
    if (names.includes('basic')) return { authorization: basic };
    return {};
  }

  function requestOf(o: Operation) {
    let url = o.path;
    const query = new URLSearchParams();
    for (const p of o.op.parameters ?? []) {
      const example = parameterExample(p);
      if (example === undefined) continue;
      if (p.in === 'path') url = url.replace(`{${p.name}}`, String(example));
      if (p.in === 'query') query.set(p.name, String(example));
    }
    if ([...query].length) url += `?${query}`;
    const [type, media] = Object.entries<any>(o.op.requestBody?.content ?? {})[0] ?? [];
    let payload: string | undefined;
    if (media) {
      // One example is `example`; several are `examples`, of which the first is replayed.
      const example =
        media.example ?? (Object.values(media.examples ?? {})[0] as { value?: unknown } | undefined)?.value;
      payload =
        type === 'application/x-www-form-urlencoded'
          ? new URLSearchParams(example as Record<string, string>).toString()
          : typeof example === 'string'
            ? example
            : JSON.stringify(example);
    }
    const contentType = type === '*/*' ? 'application/json' : type;
    return { url, payload, contentType };
  }

  /** The answer is documented under its status and its body is valid against that schema; '' when so. */
  function checkAnswer(o: Operation, res: { statusCode: number; body: string; headers: Record<string, unknown> }) {
    const where = `${o.method} ${o.path} -> ${res.statusCode}`;
    const documented = documentedResponse(o.op, res.statusCode);
    if (!documented) return `${where}: status not documented (${res.body.slice(0, 200)})`;
    const json = documented.content?.['application/json'];
    if (!json) return '';
    if (!String(res.headers['content-type']).startsWith('application/json')) return `${where}: not JSON`;
    const error = ajv.check(json.schema, JSON.parse(res.body));
    return error ? `${where}: ${error} in ${res.body.slice(0, 300)}` : '';
  }

  it('answers every operation example as documented', async () => {
    // What the examples presume beyond what earlier examples write: a form with a second version, so that deleting
    // version 1 leaves the form for the delete of the whole form.
    const form = { name: 'Contact', config: { components: [{ type: 'textfield', key: 'name', label: 'Name' }] } };
    const seeded = await t.request({
      method: 'POST',
      url: '/cxf/svc-forms/forms/contact',
      headers: { 'x-apikey': KEY },
      payload: form,
    });
    expect(seeded.statusCode).toBe(200);

    const problems: string[] = [];
    let replayed = 0;
    let conditional = 0;
    for (const o of ops) {
      if (o.path === DM_PATH || o.path.endsWith('/stream')) continue; // below, in tests of their own
      const { url, payload, contentType } = requestOf(o);
      const res = await t.request({
        method: o.method as 'GET',
        url,
        headers: { ...credentials(o.op, o.method), ...(payload !== undefined ? { 'content-type': contentType } : {}) },
        ...(payload !== undefined ? { payload } : {}),
      });
      replayed++;
      // A session id cannot be known before the session exists: the example names none, and 404 is its answer.
      const unknowable = o.path.endsWith('/sessions/{id}') && res.statusCode === 404;
      if ((res.statusCode < 200 || res.statusCode > 299) && !unknowable)
        problems.push(`${o.method} ${url} -> ${res.statusCode}: ${res.body.slice(0, 300)}`);
      const problem = checkAnswer(o, res);
      if (problem) problems.push(problem);
      // A conditional GET (304 documented): its 200 carries the documented ETag, and that tag sent back answers 304
      // without a body, as documented.
      if (o.op.responses?.['304'] && res.statusCode === 200) {
        const tag = res.headers.etag;
        if (typeof tag !== 'string' || !o.op.responses['200']?.headers?.etag)
          problems.push(`${o.method} ${url}: 304 documented, but no ETag documented and sent`);
        else {
          const again = await t.request({
            method: 'GET',
            url,
            headers: { ...credentials(o.op, o.method), 'if-none-match': tag },
          });
          conditional++;
          if (again.statusCode !== 304 || again.body !== '')
            problems.push(`${o.method} ${url} with If-None-Match -> ${again.statusCode}: ${again.body.slice(0, 200)}`);
          const notModified = checkAnswer(o, again);
          if (notModified) problems.push(notModified);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(replayed).toBeGreaterThanOrEqual(40);
    // Storage item read and list, notification read and list, five forms reads and the forms list.
    expect(conditional).toBeGreaterThanOrEqual(10);
  });

  it("answers every data management call's example with its documented answer", async () => {
    const op = ops.find((o) => o.path === DM_PATH)!;
    const problems: string[] = [];
    const call = async (body: unknown) =>
      t.request({
        method: 'POST',
        url: DM_PATH,
        headers: { authorization: basic, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const calls = dmCallOrder(doc);
    expect(calls.length).toBe(18);
    for (const { context, method, call: example } of calls) {
      const res = await call(example);
      const where = `${context}.${method}`;
      if (res.statusCode !== 200) problems.push(`${where} -> ${res.statusCode}: ${res.body.slice(0, 300)}`);
      else {
        const error = ajv.check(
          { $ref: `#/components/schemas/DataManagement.${context}.${method}.Answer` },
          res.json(),
        );
        if (error) problems.push(`${where}: ${error} in ${res.body.slice(0, 300)}`);
      }
      const problem = checkAnswer(op, res);
      if (problem) problems.push(`${where}: ${problem}`);
      // The operation's own example (a get of the asset) once the asset exists.
      if (context === 'Asset' && method === 'create') {
        const { payload } = requestOf(op);
        const own = await call(JSON.parse(payload!));
        expect(own.statusCode).toBe(200);
        const ownProblem = checkAnswer(op, own);
        if (ownProblem) problems.push(`operation example: ${ownProblem}`);
        // A batch answers {responses} as documented.
        const batch = await call({ requests: [JSON.parse(payload!), { context: 'Template', method: 'query' }] });
        const batchProblem = batch.statusCode === 200 ? checkAnswer(op, batch) : `batch -> ${batch.statusCode}`;
        if (batchProblem) problems.push(`batch: ${batchProblem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('answers errors as documented: no credential, and a body of the wrong type', async () => {
    const problems: string[] = [];
    let errors = 0;
    for (const o of ops) {
      if (o.path.endsWith('/stream')) continue; // its refusals: below
      const { url, payload, contentType } = requestOf(o);
      const attempts: Array<{ headers: Record<string, string>; payload?: string }> = [];
      const secured = (o.op.security ?? []).length > 0 && !o.op.security.some((s: object) => !Object.keys(s).length);
      if (secured)
        attempts.push({
          headers: payload !== undefined ? { 'content-type': contentType } : {},
          ...(payload !== undefined ? { payload } : {}),
        });
      if (payload !== undefined && contentType === 'application/json' && !o.path.includes('/flow/'))
        attempts.push({ headers: { ...credentials(o.op, o.method), 'content-type': contentType }, payload: '[1,2]' });
      if (o.path === '/cxf/svc-core/authentication' && o.method === 'POST')
        attempts.push({ headers: { 'content-type': contentType }, payload: 'tenantname=acme&username=alice' });
      for (const a of attempts) {
        const res = await t.request({ method: o.method as 'GET', url, headers: a.headers, payload: a.payload });
        errors++;
        if (res.statusCode < 400) problems.push(`${o.method} ${url} -> ${res.statusCode} for a refused request`);
        const problem = checkAnswer(o, res);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
    expect(errors).toBeGreaterThanOrEqual(40);
  });

  it('streams the events its x-events name, each with the data its schema says', async () => {
    const o = ops.find((x) => x.path === '/cxf/svc-core/notification/stream')!;
    const events = o.op['x-events'];
    const refused = await openSse(`${base}/cxf/svc-core/notification/stream`);
    expect(refused.status).toBe(401);
    expect(checkAnswer(o, { statusCode: 401, body: refused.body, headers: refused.headers })).toBe('');
    const stream = await openSse(`${base}/cxf/svc-core/notification/stream`, { 'x-apikey': KEY });
    try {
      expect(stream.status).toBe(200);
      expect(Object.keys(o.op.responses['200'].content)).toEqual([
        String(stream.headers['content-type']).split(';')[0],
      ]);
      const body = { id: `n-${engine}`, subject: 'Hi', recipients: ['NOTIFICATION_ADMIN'], recipientsType: 'role' };
      const added = await t.request({
        method: 'POST',
        url: '/cxf/svc-core/notification',
        headers: { 'x-apikey': KEY },
        payload: body,
      });
      expect(added.statusCode).toBe(200);
      const [event] = await stream.waitFor(1, 'notification', 10_000);
      expect(event.id).toBeDefined();
      expect(ajv.check(events.notification, JSON.parse(event.data))).toBe('');
    } finally {
      stream.close();
    }
    const reset = await openSse(`${base}/cxf/svc-core/notification/stream`, { 'x-apikey': KEY, 'last-event-id': 'x' });
    try {
      const [event] = await reset.waitFor(1, 'reset', 10_000);
      expect(ajv.check(events.reset, JSON.parse(event.data))).toBe('');
    } finally {
      reset.close();
    }
  });
});

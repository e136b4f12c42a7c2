// Shared plumbing of the storage tests: who calls, and one-line HTTP calls against the store endpoints.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { ADMIN_PASSWORD, login, sessionHeaders, startTestApp, type Engine, type TestApp } from '../helpers/test-app.js';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load-config.js';
import type { DirectReader } from '../../src/platform/db/data-access.js';

export const STORE = '/cxf/svc-core/storage/store';

/** Tenant `acme`: a session user and API keys with the same kinds of grants; tenant `globex` mirrors names. */
export const STORAGE_CONFIG = {
  tenants: [
    {
      name: 'acme',
      users: [
        {
          loginName: 'uma',
          password: 'uma-secret-1',
          organisations: ['orgA'],
          inactiveOrganisations: ['orgOld'],
          roles: ['roleA'],
          rights: ['rightA'],
        },
        { loginName: 'nobody', password: 'nobody-secret-1' },
      ],
      apiKeys: [
        { name: 'kim', key: 'k-kim-0123456789', organisations: ['orgA'], roles: ['roleA'], rights: ['rightA'] },
        { name: 'owner', key: 'k-owner-0123456789', roles: ['OWNER'] },
        { name: 'other', key: 'k-other-0123456789', roles: ['roleB'] },
      ],
    },
    {
      name: 'globex',
      users: [
        {
          loginName: 'uma',
          password: 'uma-secret-2',
          organisations: ['orgA'],
          roles: ['roleA', 'OWNER'],
          rights: ['rightA'],
        },
      ],
      apiKeys: [{ name: 'owner', key: 'k-globex-owner-0123', roles: ['OWNER'], organisations: ['orgA'] }],
    },
  ],
};

/**
 * STORAGE_CONFIG with no list answer kept (store-kept-lists.ts): for the tests of the statements a list runs, which a
 * list asked again would otherwise not run.
 */
export const UNKEPT_CONFIG = { ...STORAGE_CONFIG, storage: { listCacheSeconds: 0 } };

export const OWNER_KEY = 'k-owner-0123456789';

/** A caller: the headers its requests carry. */
export interface Caller {
  name: string;
  headers(unsafe: boolean): Record<string, string>;
}

export const apiKeyCaller = (name: string, key: string): Caller => ({ name, headers: () => ({ 'x-apikey': key }) });

export async function sessionCaller(t: TestApp, tenant: string, user: string, password: string): Promise<Caller> {
  const s = await login(t, tenant, user, password);
  return { name: user, headers: (unsafe) => sessionHeaders(s, unsafe) };
}

/** A second instance of the service on `t`'s database, with STORAGE_CONFIG (close it when done). */
export function secondInstance(t: TestApp): ReturnType<typeof buildApp> {
  const config = parseConfig({
    ...STORAGE_CONFIG,
    server: { logLevel: 'silent' },
    identity: { bootstrapAdminPassword: ADMIN_PASSWORD },
  });
  return buildApp(config, { database: t.database, logger: false });
}

/** Thin HTTP helpers bound to one app and caller. */
export function client(t: TestApp, c: Caller) {
  const send = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
  ): Promise<LightMyRequestResponse> =>
    t.request({
      method,
      url,
      headers: {
        ...c.headers(method !== 'GET'),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  return {
    send,
    create: (store: string, body: unknown) => send('POST', `${STORE}/${store}`, body),
    put: (store: string, id: string, body: unknown) => send('PUT', `${STORE}/${store}/${id}`, body),
    post: (store: string, id: string, body: unknown) => send('POST', `${STORE}/${store}/${id}`, body),
    read: (store: string, id: string) => send('GET', `${STORE}/${store}/${id}`),
    remove: (store: string, id: string) => send('DELETE', `${STORE}/${store}/${id}`),
    list: (store: string, params: Record<string, string | number> = {}) => {
      const qs = new URLSearchParams(
        Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
      ).toString();
      return send('GET', `${STORE}/${store}${qs ? `?${qs}` : ''}`);
    },
  };
}

/**
 * The app on `engine` with STORAGE_CONFIG (or `config`), started before the file's tests and closed after them, and a client with
 * the owner's API key (read both inside the tests).
 */
export function ownerApp(
  engine: Engine,
  config: object = STORAGE_CONFIG,
): { readonly t: TestApp; readonly owner: ReturnType<typeof client> } {
  const app = {} as { t: TestApp; owner: ReturnType<typeof client> };
  beforeAll(async () => {
    app.t = await startTestApp(engine, config);
    app.owner = client(app.t, apiKeyCaller('owner', OWNER_KEY));
  });
  afterAll(() => app.t.close());
  return app;
}

/** PUTs `count` items into `store`, 50 at a time: `body(i)` gives item i's id and body; each must answer 200. */
export async function putItems(
  c: ReturnType<typeof client>,
  store: string,
  count: number,
  body: (i: number) => { id: string; item: unknown },
): Promise<void> {
  for (let from = 0; from < count; from += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - from) }, async (_, k) => {
        const { id, item } = body(from + k);
        const res = await c.put(store, id, item);
        expect(res.statusCode, res.body).toBe(200);
      }),
    );
  }
}

/** A list's total and the ids of its page, after checking it answered 200. */
export async function listIds(
  c: ReturnType<typeof client>,
  store: string,
  params: Record<string, string | number>,
): Promise<{ total: number; ids: string[] }> {
  const res = await c.list(store, params);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  return { total: body.total as number, ids: body.items.map((i: { id: string }) => i.id) };
}

/** An item body with restrictions that let `who` (a role) read and write. */
export const item = (value: unknown, extra: Record<string, unknown> = {}) => ({
  value,
  readRestriction: { roles: ['OWNER'] },
  writeRestriction: { roles: ['OWNER'] },
  ...extra,
});

/** Every storage error is the error object and never carries SQL or a stack. */
export function expectErrorObject(res: LightMyRequestResponse, status: number): Record<string, any> {
  if (res.statusCode !== status)
    throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body.slice(0, 300)}`);
  const body = res.json();
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== 'error') throw new Error(`not an error object: ${res.body.slice(0, 300)}`);
  const e = body.error;
  for (const k of ['messageKey', 'code', 'name', 'message', 'properties'])
    if (!(k in e)) throw new Error(`error object lacks ${k}`);
  if (
    /select |insert |update |delete from|sqlite|postgres|syntax error at|\bat [\w.<>]+ \(|node_modules/i.test(res.body)
  ) {
    throw new Error(`error leaks internals: ${res.body.slice(0, 300)}`);
  }
  return e;
}

/**
 * Records the text of every statement the app runs for the caller from here on, on either engine (the app runs in this
 * process): those run in the caller's async context (its requests, and the batches and reads they start), not those of
 * the app's own timers (the statistics upkeep, the feed's heartbeat), which would make a count of statements depend on
 * the machine's speed.
 */
export function recordStatements(t: TestApp): { texts: string[]; parameters: unknown[][]; stop(): void } {
  const texts: string[] = [];
  const parameters: unknown[][] = [];
  const caller = new AsyncLocalStorage<true>();
  caller.enterWith(true);
  const record = (sql: string, values: readonly unknown[]) => {
    if (caller.getStore() !== true) return;
    texts.push(sql);
    parameters.push([...values]);
  };
  // The executor class of every Kysely instance of the app (plugins make new instances of it).
  const executor = Object.getPrototypeOf(t.database.db.getExecutor());
  const executeQuery = executor.executeQuery;
  executor.executeQuery = function (
    this: unknown,
    compiled: { sql: string; parameters: readonly unknown[] },
    ...rest: unknown[]
  ) {
    record(compiled.sql, compiled.parameters);
    return executeQuery.call(this, compiled, ...rest);
  };
  // And those it runs on SQLite's reader threads (readOffThread: the lists).
  const { data } = t.database;
  const reader = data.offThreadReader;
  if (reader) {
    data.offThreadReader = (sql, values, arrays) => {
      record(sql, values);
      return reader(sql, values, arrays);
    };
  }
  // And SQLite's prepared reads on the main connection that skip Kysely (the entity tags' change counts, say).
  const direct: { directReader?: DirectReader } = data;
  const directReader = direct.directReader;
  if (directReader) {
    direct.directReader = (sql, values, options) => {
      record(sql, values);
      return directReader(sql, values, options);
    };
  }
  return {
    texts,
    parameters,
    stop() {
      executor.executeQuery = executeQuery;
      if (reader) data.offThreadReader = reader;
      if (directReader) direct.directReader = directReader;
      caller.disable();
    },
  };
}

// Crash durability: the real service process under concurrent writers (storage creates and updates, form versions)
// is killed with SIGKILL mid-load and started again on the same data. Every write that was acknowledged must be there
// with its exact content; a write that was in flight may be there or not, but whole; nothing else may appear.
import { afterEach, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { join } from 'node:path';
import { describeEachEngine } from '../helpers/test-app.js';
import {
  createProcessDatabase,
  makeWorkDir,
  startServiceProcess,
  type ServiceProcess,
} from '../helpers/service-process.js';

const KEY = 'k-crash-writer-0123';
const STORE = 'crash';
const STORAGE_WRITERS = 12;
const FORM_WRITERS = 4;
const CONFIG = {
  identity: { bootstrapAdminPassword: 'admin-pass-1' },
  tenants: [{ name: 'acme', apiKeys: [{ name: 'writer', key: KEY, roles: ['OWNER', 'FORMS_ADMIN'] }] }],
};
const restriction = { roles: ['OWNER'] };

/** What the writers sent and what the service acknowledged. */
interface ItemLedger {
  acked: unknown;
  /** A value sent by an update that got no answer (at most one: each writer updates its own items in turn). */
  pending?: unknown;
}
interface FormLedger {
  /** version -> name of an acknowledged version. */
  acked: Map<number, string>;
  /** The name of a version sent without an answer. */
  pending?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function randomValue(writer: number, n: number) {
  return {
    writer,
    n,
    text: randomBytes(50 + ((writer * 31 + n * 17) % 400)).toString('base64'),
    nested: {
      list: [n, `${writer}-${n}`, { deep: n % 7 === 0 }],
      when: new Date(1_700_000_000_000 + n * 1000).toISOString(),
    },
  };
}

async function send(base: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: { 'x-apikey': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describeEachEngine('crash durability: SIGKILL under concurrent writers', (engine) => {
  let svc: ServiceProcess | undefined;
  const cleanups: Array<() => unknown> = [];

  afterEach(async () => {
    await svc?.kill();
    svc = undefined;
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('keeps every acknowledged write exactly, and shows nothing half-written after the restart', async () => {
    const work = makeWorkDir();
    cleanups.push(() => work.cleanup());
    let env: Record<string, string> = {};
    if (engine === 'postgres') {
      const database = await createProcessDatabase(inject('pgUrl'));
      cleanups.push(() => database.drop());
      env = { DATABASE_URL: database.url };
    }
    svc = await startServiceProcess({ config: CONFIG, workDir: work.dir, env });
    const base = svc.url;

    const items = new Map<string, ItemLedger>();
    /** Values of creates that got no answer: they may exist under an id we never learnt. */
    const unansweredCreates: unknown[] = [];
    const forms = new Map<string, FormLedger>();
    let dead = false;
    const counts = { creates: 0, updates: 0, versions: 0 };

    const storageWriter = async (w: number) => {
      const mine: string[] = [];
      for (let n = 0; !dead; n++) {
        const update = mine.length > 0 && n % 3 === 2;
        const value = randomValue(w, n);
        if (update) {
          const id = mine[n % mine.length];
          const ledger = items.get(id)!;
          ledger.pending = value;
          try {
            const res = await send(base, 'PUT', `/cxf/svc-core/storage/store/${STORE}/${id}`, {
              value,
              readRestriction: restriction,
              writeRestriction: restriction,
            });
            if (res.status !== 200) throw new Error(`update answered ${res.status}: ${await res.text()}`);
            await res.arrayBuffer();
            ledger.acked = value;
            ledger.pending = undefined;
            counts.updates++;
          } catch (err) {
            if (!dead) throw err;
            return;
          }
        } else {
          unansweredCreates.push(value);
          try {
            const res = await send(base, 'POST', `/cxf/svc-core/storage/store/${STORE}`, {
              value,
              readRestriction: restriction,
              writeRestriction: restriction,
            });
            if (res.status !== 200) throw new Error(`create answered ${res.status}: ${await res.text()}`);
            const { id } = (await res.json()) as { id: string };
            unansweredCreates.splice(unansweredCreates.indexOf(value), 1);
            items.set(id, { acked: value });
            mine.push(id);
            counts.creates++;
          } catch (err) {
            if (!dead) throw err;
            return;
          }
        }
      }
    };

    const formWriter = async (w: number) => {
      const formId = `form-${w}`;
      const ledger: FormLedger = { acked: new Map() };
      forms.set(formId, ledger);
      for (let n = 0; !dead; n++) {
        const name = `form ${w} version sent as #${n} ${randomBytes(8).toString('hex')}`;
        ledger.pending = name;
        try {
          const res = await send(base, 'POST', `/cxf/svc-forms/forms/${formId}`, {
            name,
            config: { configuration: {}, components: [{ type: 'textfield', label: name, key: `k${n}` }] },
          });
          if (res.status !== 200) throw new Error(`form version answered ${res.status}: ${await res.text()}`);
          const form = (await res.json()) as { version: number };
          ledger.acked.set(form.version, name);
          ledger.pending = undefined;
          counts.versions++;
        } catch (err) {
          if (!dead) throw err;
          return;
        }
      }
    };

    const writers = [
      ...Array.from({ length: STORAGE_WRITERS }, (_, w) => storageWriter(w)),
      ...Array.from({ length: FORM_WRITERS }, (_, w) => formWriter(w)),
    ];
    // Kill mid-load once every kind of write has been acknowledged a fair number of times: waited for, with a
    // deadline far beyond what it takes (a few seconds alone), so that a loaded machine is slower, not red.
    const until = Date.now() + 60_000;
    while ((counts.creates < 300 || counts.updates < 100 || counts.versions < 40) && Date.now() < until)
      await sleep(20);
    dead = true;
    await svc.kill();
    await Promise.all(writers);
    expect(counts.creates).toBeGreaterThanOrEqual(300);
    expect(counts.updates).toBeGreaterThanOrEqual(100);
    expect(counts.versions).toBeGreaterThanOrEqual(40);

    svc = await startServiceProcess({ config: CONFIG, workDir: work.dir, env });

    // Storage: every acknowledged item is there with its last acknowledged value (or the update in flight, whole).
    for (const [id, ledger] of items) {
      const res = await send(svc.url, 'GET', `/cxf/svc-core/storage/store/${STORE}/${id}`);
      expect(res.status, `item ${id}`).toBe(200);
      const item = (await res.json()) as { value: unknown; readRestriction: unknown; writeRestriction: unknown };
      const allowed = ledger.pending === undefined ? [ledger.acked] : [ledger.acked, ledger.pending];
      expect(allowed, `item ${id} holds a value that was sent for it`).toContainEqual(item.value);
      expect(item.readRestriction).toEqual(restriction);
      expect(item.writeRestriction).toEqual(restriction);
    }
    // Nothing else is listed but creates that were in flight, and each of those whole.
    const list = await send(svc.url, 'GET', `/cxf/svc-core/storage/store/${STORE}?limit=10000`);
    expect(list.status).toBe(200);
    const listed = (await list.json()) as { total: number; items: Array<{ id: string; value: unknown }> };
    const rows = listed.items;
    expect(listed.total).toBe(rows.length);
    const unknown = rows.filter((r) => !items.has(r.id));
    expect(unknown.length).toBeLessThanOrEqual(unansweredCreates.length);
    for (const r of unknown) expect(unansweredCreates, `unacknowledged item ${r.id}`).toContainEqual(r.value);
    expect(rows.length).toBe(items.size + unknown.length);

    // Forms: every acknowledged version with its exact content; at most the one version in flight beyond them.
    for (const [formId, ledger] of forms) {
      const res = await send(svc.url, 'GET', `/cxf/svc-forms/history/${formId}`);
      expect(res.status, `history of ${formId}`).toBe(200);
      const history = (await res.json()) as Array<{
        version: number;
        name: string;
        config: { components: Array<{ label: string }> };
      }>;
      const byVersion = new Map(history.map((f) => [f.version, f]));
      for (const [version, name] of ledger.acked) {
        expect(byVersion.get(version)?.name, `${formId} v${version}`).toBe(name);
        expect(byVersion.get(version)?.config.components[0].label).toBe(name);
      }
      const extra = history.filter((f) => !ledger.acked.has(f.version));
      expect(extra.length).toBeLessThanOrEqual(ledger.pending === undefined ? 0 : 1);
      for (const f of extra) expect(f.name).toBe(ledger.pending);
      expect(history.map((f) => f.version).sort((a, b) => a - b)).toEqual(history.map((_, i) => i + 1));
    }

    // Nothing half-written underneath either: every stored item row is one the API lists (its access rows exist).
    await svc.stop();
    svc = undefined;
    expect(await countStoredItems(engine, work.dir, env.DATABASE_URL)).toBe(rows.length);
    // Two service starts, the load and the checks: seconds alone, far more on a loaded machine.
  }, 150_000);
});

async function countStoredItems(engine: string, workDir: string, url?: string): Promise<number> {
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return Number((await client.query('select count(*) as n from storage_items')).rows[0].n);
    } finally {
      await client.end();
    }
  }
  const db = new SQLite(join(workDir, 'data', 'svc.sqlite'), { readonly: true });
  try {
    return (db.prepare('select count(*) as n from storage_items').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

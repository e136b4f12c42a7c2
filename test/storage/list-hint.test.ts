// The few-items hint (store-few-readable.ts: how many of a store's items the caller may read, up to FEW_READABLE) is
// read as a list's other statements are: prepared on the server, and where the database reads off the main thread
// (SQLite's reader threads), there, never on the main connection.
import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { item, listIds, ownerApp } from './storage-kit.js';
import { offThreadReader, registerOffThreadReader } from '../../src/platform/db/read-off-thread.js';
import { PREPARED_MARK } from '../../src/platform/db/prepared-query.js';
import { FEW_READABLE } from '../../src/modules/storage/store-scope.js';

describeEachEngine('storage list hint', (engine) => {
  const app = ownerApp(engine);

  it("counts the caller's access rows as a list's statements run", async () => {
    expect((await app.owner.put('hint', 'h1', item({ n: 1 }))).statusCode).toBe(200);
    const { db } = app.t.database;
    const onMain: string[] = [];
    const offThread: string[] = [];
    const executor = Object.getPrototypeOf(db.getExecutor());
    const executeQuery = executor.executeQuery;
    executor.executeQuery = function (this: unknown, compiled: { sql: string }, ...rest: unknown[]) {
      onMain.push(compiled.sql);
      return executeQuery.call(this, compiled, ...rest);
    };
    const reader = offThreadReader(db);
    if (reader) {
      registerOffThreadReader(db, (text, values) => {
        offThread.push(text);
        return reader(text, values);
      });
    }
    try {
      // The first list of this caller in this store: the hint is counted.
      expect(
        await listIds(app.owner, 'hint', {
          filter: JSON.stringify([{ property: 'value.n', operator: 'eq', value: 1 }]),
        }),
      ).toEqual({
        total: 1,
        ids: ['h1'],
      });
    } finally {
      executor.executeQuery = executeQuery;
      if (reader) registerOffThreadReader(db, reader);
    }
    const isHint = (text: string) => text.includes(`LIMIT ${FEW_READABLE}) q__c`);
    const hints = [...onMain, ...offThread].filter(isHint);
    expect(hints).toHaveLength(1);
    expect(hints[0].startsWith(PREPARED_MARK)).toBe(true);
    if (reader) expect(onMain.filter(isHint)).toEqual([]);
  });
});

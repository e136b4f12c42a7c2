// The statement recorder of the storage tests (storage-kit.ts recordStatements) counts what a test's requests run, not
// what the app's own timers run meanwhile (the statistics upkeep, the feed's heartbeat): tests that count statements
// (sort-walk.test.ts: "the walk alone") failed now and then on a busy machine, when the upkeep's check fell inside.
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { listIds, ownerApp, recordStatements } from './storage-kit.js';

describeEachEngine('storage tests: the statement recorder', (engine) => {
  const app = ownerApp(engine);

  it("records the caller's requests and not a timer of the app's set before", async () => {
    const db = app.t.database.db;
    // A timer made before the recorder, as the app's upkeep is: it fires, and runs its statement, while the recorder is
    // on (the recorder starts in this turn, before any timer can fire).
    let timer!: NodeJS.Timeout;
    const ran = new Promise<void>((resolve) => {
      timer = setTimeout(() => void sql`select 'timer-statement' as x`.execute(db).then(() => resolve()), 0);
    });
    const recorded = recordStatements(app.t);
    try {
      await ran;
      expect((await listIds(app.owner, 'recorded', { limit: 5 })).ids).toEqual([]);
      await sql`select 'caller-statement' as x`.execute(db);
    } finally {
      recorded.stop();
      clearTimeout(timer);
    }
    expect(recorded.texts.some((text) => text.includes('caller-statement'))).toBe(true);
    expect(recorded.texts.some((text) => text.includes('timer-statement'))).toBe(false);
    // The list's own statements are there.
    expect(recorded.texts.length).toBeGreaterThan(1);
  });
});

// Loaded into the service with `node --import` (bench/storage-walk-replay.mjs): appends each statement the pg driver
// sends, its text and values as one JSON line, to the file SVC_STATEMENT_LOG, so a benchmark can replay exactly what
// the service ran. Bench only; the service knows nothing of it.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// The service's own pg (a build elsewhere resolves its own node_modules), from its main script.
const pg = createRequire(process.argv[1])('pg');
const file = process.env.SVC_STATEMENT_LOG;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, values, callback) {
  const text = typeof config === 'string' ? config : config?.text;
  const bound = typeof config === 'object' && config?.values ? config.values : values;
  if (file && text) appendFileSync(file, `${JSON.stringify({ text, values: bound ?? [] })}\n`);
  return query.call(this, config, values, callback);
};

// Issue 47 goal 7: the notification hub's own work per delivered event, without the socket. N streams of fake responses
// whose socket's write does nothing; one notification to a role they all hold is dispatched ROUNDS times. AUDIENCES=one
// (every stream the same caller, as bench/notifications.mjs opens them) or AUDIENCES=each (every stream its own user,
// as 10,000 people each holding the role would). Prints ns per delivered event (wall, best of ROUNDS batches).
// Usage: npm run build && STREAMS=10000 AUDIENCES=each node bench/sse-dispatch.mjs  (MAIN_DIR: another build's root)
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const STREAMS = Number(process.env.STREAMS ?? 10_000);
const AUDIENCES = process.env.AUDIENCES ?? 'each';
const ROUNDS = Number(process.env.ROUNDS ?? 200);
const dir = process.env.MAIN_DIR ?? join(import.meta.dirname, '..');
const { NotificationStreams } = await import(
  pathToFileURL(join(dir, 'dist/modules/notifications/live/notification-streams.js')).href
);

let written = 0;
class FakeSocket {
  destroyed = false;
  writableLength = 0;
  write() {
    written++;
    return true;
  }
}
class FakeResponse extends EventEmitter {
  destroyed = false;
  writableEnded = false;
  chunkedEncoding = true;
  socket = new FakeSocket();
  get writableLength() {
    return this.socket.writableLength;
  }
  writeHead() {
    return this;
  }
  write() {
    return true;
  }
  end() {
    this.writableEnded = true;
    this.emit('close');
  }
}

let listener;
const feed = {
  subscribe(_topic, l) {
    listener = l;
    return () => {};
  },
  replay: async () => ({ kind: 'events', events: [] }),
};
const log = { warn() {}, debug() {}, info() {} };
const streams = new NotificationStreams(feed, { heartbeatMs: 3_600_000, retryMs: 1000, maxQueuedBytes: 1 << 20 }, log);
streams.start();
for (let i = 0; i < STREAMS; i++) {
  const user = AUDIENCES === 'one' ? 'listener' : `user-${i}`;
  await streams.open(
    new FakeResponse(),
    't',
    { all: false, user, roles: ['role-fanout'], organisations: [] },
    undefined,
  );
}
const notification = {
  id: 'n-1',
  priority: 5,
  subject: 'send-1',
  recipients: ['role-fanout'],
  recipientsType: 'role',
  originator: 'writer',
  type: 'info',
  date: new Date().toISOString(),
  version: 1,
};
const times = [];
for (let r = 0; r < ROUNDS; r++) {
  const event = {
    id: r + 1,
    tenantId: 't',
    topic: 'notification',
    createdOn: Date.now(),
    payload: { action: 'add', notification },
  };
  const t0 = process.hrtime.bigint();
  listener(event);
  times.push(Number(process.hrtime.bigint() - t0) / STREAMS);
}
if (written !== ROUNDS * STREAMS) throw new Error(`${written} writes, expected ${ROUNDS * STREAMS}`);
times.sort((a, b) => a - b);
console.log(
  `${STREAMS} streams, audiences ${AUDIENCES}: ns per delivered event best ${times[0].toFixed(0)}, ` +
    `median ${times[times.length >> 1].toFixed(0)} (${ROUNDS} dispatches)`,
);
streams.close();

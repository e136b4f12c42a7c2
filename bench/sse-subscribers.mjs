// SSE subscribers for the fan-out benchmarks (notifications.mjs, storage-stream.mjs), held in worker threads: on 2
// cores, 10,000 streams parsed on the benchmark's own thread made the client the bottleneck, so the figure was partly
// the client's. Each worker holds a share of the streams, notes when a marked event (`"<field>":"<mark>"` in a frame)
// reaches each of them, and answers when all of its streams that should get a mark have it, with the first and last
// arrival (epoch ms: performance.timeOrigin + performance.now(), comparable across threads).
//
// A lean reader (issue 47, goal 7): raw TCP sockets, a hand-written request and a minimal HTTP/1.1 chunked decoder
// instead of node:http's client (llhttp, IncomingMessage, a string decoder per stream), which cost the client more per
// event than the service spent sending it. It still checks what matters: the answer is `200` and chunked, every chunk
// is exactly as long as its size line says and ends with CRLF, every frame ends with a blank line, and every marked
// event reaches each stream whole and once (a second copy counts as `duplicates`, a broken chunk as `broken`).
// Each reader warms up on a loopback server of its own before its streams open, collects its garbage once they are
// open and warms up again (WARM_CLIENT=0 for the reader without: `warmUp`), so that its own first optimisations and
// collections stay out of the sends.
import { connect, createServer } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const now = () => performance.timeOrigin + performance.now();

/**
 * Opens the streams in `threads` workers. `subscribers[i]` is `{ key, mustContain? }`: the API key of stream i and, if
 * given, a text every marked frame it gets must contain (else the frame counts as `wrong`). `field` is the JSON member
 * whose value is the mark (`subject`, `mark`). Answers `{ awaitMark, stats, close }`.
 */
export async function openSubscribers({ url, path, subscribers, field, threads = 2 }) {
  const shares = Array.from({ length: threads }, () => []);
  subscribers.forEach((s, i) => shares[i % threads].push({ ...s, index: i }));
  const workers = shares.map(
    (share) => new Worker(new URL(import.meta.url), { workerData: { url, path, field, subscribers: share } }),
  );
  const replies = new Map();
  let nextId = 0;
  const ask = (w, message) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      replies.set(id, { resolve, reject });
      w.postMessage({ ...message, id });
    });
  for (const w of workers) {
    w.on('message', (m) => {
      const r = replies.get(m.id);
      replies.delete(m.id);
      if (m.error) r?.reject(new Error(m.error));
      else r?.resolve(m);
    });
    w.on('error', (err) => {
      for (const r of replies.values()) r.reject(err);
    });
  }
  await Promise.all(workers.map((w) => ask(w, { type: 'open' })));
  return {
    /**
     * Resolves with the first and last arrival (epoch ms) of `mark` once every stream `expects(subscriber)` says
     * should get it has it: `{ first, last }`; rejects after `timeoutMs`.
     */
    async awaitMarkTimes(mark, expects, timeoutMs = 10_000) {
      const answers = await Promise.all(
        workers.map((w, t) => ask(w, { type: 'await', mark, count: shares[t].filter(expects).length, timeoutMs })),
      );
      const got = answers.filter((a) => a.last > 0);
      return { first: Math.min(...got.map((a) => a.first)), last: Math.max(...got.map((a) => a.last)) };
    },
    /** As awaitMarkTimes, the last arrival only. */
    async awaitMark(mark, expects, timeoutMs) {
      return (await this.awaitMarkTimes(mark, expects, timeoutMs)).last;
    },
    /**
     * Marked frames that reached a stream they should not have (`wrong`), second copies (`duplicates`), malformed
     * chunks (`broken`), heartbeat comments seen since every stream was open (`heartbeats`), and the busiest worker's event-loop utilisation since
     * its streams were open (near 1: the client, not the service, set the pace).
     */
    async stats() {
      const answers = await Promise.all(workers.map((w) => ask(w, { type: 'stats' })));
      const sum = (k) => answers.reduce((n, a) => n + a[k], 0);
      return {
        wrong: sum('wrong'),
        duplicates: sum('duplicates'),
        broken: sum('broken'),
        heartbeats: sum('heartbeats'),
        clientUtilisation: Math.max(...answers.map((a) => a.utilisation)),
      };
    },
    async close() {
      await Promise.all(workers.map((w) => ask(w, { type: 'close' }).catch(() => undefined)));
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

function runWorker() {
  const { url, path, field, subscribers } = workerData;
  const { hostname, port } = new URL(url);
  const sockets = [];
  /** mark -> { count, first, last } */
  const arrivals = new Map();
  /** mark -> { count, done } of a pending await */
  const waits = new Map();
  let wrong = 0;
  let duplicates = 0;
  let broken = 0;
  let heartbeats = 0;
  const pattern = new RegExp(`"${field}":"([^"]+)"`);
  let eluStart;

  const arrived = (mark) => {
    const t = now();
    let a = arrivals.get(mark);
    if (!a) arrivals.set(mark, (a = { count: 0, first: t, last: 0 }));
    a.count++;
    a.last = t;
    const w = waits.get(mark);
    if (w && a.count >= w.count) w.done(a);
  };

  /** One event-stream frame (without its blank line) of a stream whose marks so far are `seen`. */
  const frameOf = (sub, seen, frame) => {
    if (frame.charCodeAt(0) === 58 /* ':' */) {
      heartbeats++;
      return;
    }
    const m = pattern.exec(frame);
    if (!m) return;
    if (seen.has(m[1])) {
      duplicates++;
      return;
    }
    seen.add(m[1]);
    if (sub.mustContain !== undefined && !frame.includes(sub.mustContain)) wrong++;
    arrived(m[1]);
  };

  /**
   * One stream's bytes: the head once, then chunks decoded into frames. `c` is the stream's state: `{ sub, socket,
   * raw, head, text, seen, resolve, reject }`.
   */
  const onData = (c, data) => {
    c.raw += data.toString('latin1');
    if (c.head) {
      const end = c.raw.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = c.raw.slice(0, end).toLowerCase();
      if (!lines.startsWith('http/1.1 200 ')) return c.reject(new Error(`stream answered ${lines.slice(0, 40)}`));
      if (!lines.includes('\r\ntransfer-encoding: chunked')) return c.reject(new Error('stream is not chunked'));
      c.head = false;
      c.raw = c.raw.slice(end + 4);
      c.resolve();
    }
    const { raw } = c;
    let at = 0;
    for (;;) {
      const eol = raw.indexOf('\r\n', at);
      if (eol < 0) break;
      const size = Number.parseInt(raw.slice(at, eol), 16);
      if (!(size >= 0)) {
        broken++;
        c.socket.destroy();
        return;
      }
      const end = eol + 2 + size;
      if (raw.length < end + 2) break;
      if (raw.charCodeAt(end) !== 13 || raw.charCodeAt(end + 1) !== 10) {
        broken++;
        c.socket.destroy();
        return;
      }
      c.text += raw.slice(eol + 2, end);
      at = end + 2;
    }
    c.raw = at === raw.length ? '' : raw.slice(at);
    const { text } = c;
    let from = 0;
    let cut;
    while ((cut = text.indexOf('\n\n', from)) >= 0) {
      frameOf(c.sub, c.seen, text.slice(from, cut));
      from = cut + 2;
    }
    c.text = from === text.length ? '' : text.slice(from);
  };

  const openOne = (sub, to = { host: hostname, port: Number(port) }, into = sockets) =>
    new Promise((resolve, reject) => {
      const socket = connect(to);
      socket.setNoDelay(true);
      into.push(socket);
      // Bytes as latin1: one char per byte, so chunk sizes count in chars; the marks and texts matched are ASCII.
      /** `text`: the event-stream text decoded from the chunks, up to the last whole frame. */
      const c = { sub, socket, raw: '', head: true, text: '', seen: new Set(), resolve, reject };
      socket.on('error', reject);
      socket.on('connect', () =>
        socket.write(
          `GET ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\naccept: text/event-stream\r\nx-apikey: ${sub.key}\r\n\r\n`,
        ),
      );
      socket.on('data', (data) => onData(c, data));
    });

  /** Resolves with `{ first, last }` once `count` streams got `mark` (the path an `await` message takes). */
  const whenArrived = (mark, count, timeoutMs) =>
    new Promise((resolve, reject) => {
      const a = arrivals.get(mark);
      if (count === 0 || (a && a.count >= count)) return resolve({ first: a?.first ?? 0, last: a?.last ?? 0 });
      const timer = setTimeout(() => {
        waits.delete(mark);
        reject(new Error(`${arrivals.get(mark)?.count ?? 0} of ${count} streams got ${mark}`));
      }, timeoutMs);
      waits.set(mark, {
        count,
        done: (got) => {
          clearTimeout(timer);
          waits.delete(mark);
          resolve({ first: got.first, last: got.last });
        },
      });
    });

  /**
   * WARM_CLIENT (default on; 0 for the client as it was): before the streams to the service open, the reader gets
   * WARM_SENDS rounds of frames shaped like the service's (chunked, a marked `data:` line) over WARM_STREAMS loopback
   * sockets from a server of its own, through the same sockets' code, decoder and arrival count (`warmRounds`, run
   * again after the collection once the streams are open). Without it the first sends met the reader's own code
   * still interpreted or optimised on too few calls (its CPU in the first three sends 25-60 ms above the later ones,
   * deoptimisations in its decoder) and its own collections. The service is not involved; the counters start at zero
   * afterwards.
   */
  const warmUp = async () => {
    const streams = Number(process.env.WARM_STREAMS ?? 200);
    const accepted = [];
    const server = createServer((s) => {
      s.setNoDelay(true);
      accepted.push(s);
      s.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    warmServer = server;
    const own = [];
    const sub = { ...subscribers[0], index: -1 };
    await Promise.all(
      Array.from({ length: streams }, () => openOne(sub, { host: '127.0.0.1', port: server.address().port }, own)),
    );
    // Kept open (idle) until `close`, for `warmRounds` after the collection.
    warmSockets = [...own, ...accepted];
    warmRounds = async () => {
      for (let r = 0; r < Number(process.env.WARM_SENDS ?? 100); r++) {
        const mark = `warm-${nextWarm++}`;
        const text = `id: ${r}\nevent: notification\ndata: {"action":"create","notification":{"id":"${r}","${field}":"${mark}","body":null}}\n\n`;
        const chunk = Buffer.from(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`, 'latin1');
        const arrived = whenArrived(mark, streams, 10_000);
        for (const s of accepted) s.write(chunk);
        await arrived;
      }
      arrivals.clear();
      wrong = duplicates = broken = heartbeats = 0;
    };
    await warmRounds();
  };
  let warmRounds = async () => {};
  let nextWarm = 0;
  let warmSockets = [];
  let warmServer;

  /**
   * A full collection of this reader's heap once its streams are open (WARM_CLIENT): the opening's and the warm-up's
   * objects otherwise made the reader's own scavenges and mark-compact land in the first sends (seen with --trace-gc:
   * each reader thread scavenged and marked during sends 0-2). The service is not touched.
   */
  const collectGarbage = () => {
    setFlagsFromString('--expose-gc');
    runInNewContext('gc')();
  };

  parentPort.on('message', async (m) => {
    const reply = (answer) => parentPort.postMessage({ ...answer, id: m.id });
    try {
      if (m.type === 'open') {
        if (process.env.WARM_CLIENT !== '0') await warmUp();
        for (let from = 0; from < subscribers.length; from += 100)
          await Promise.all(subscribers.slice(from, from + 100).map((sub) => openOne(sub)));
        if (process.env.WARM_CLIENT !== '0') {
          collectGarbage();
          // The collection threw away optimised code that had warm-up objects embedded (--trace-deopt: "marking
          // dependent code ... reason: weak objects"), so the reader warms up once more.
          await warmRounds();
        }
        eluStart = performance.eventLoopUtilization();
        heartbeats = 0; // those while the streams were opened do not count
        reply({});
      } else if (m.type === 'await') {
        reply(await whenArrived(m.mark, m.count, m.timeoutMs));
      } else if (m.type === 'stats') {
        reply({
          wrong,
          duplicates,
          broken,
          heartbeats,
          utilisation: performance.eventLoopUtilization(eluStart).utilization,
        });
      } else if (m.type === 'close') {
        for (const s of [...sockets, ...warmSockets]) s.destroy();
        warmServer?.close();
        reply({});
      }
    } catch (err) {
      reply({ error: String(err?.message ?? err) });
    }
  });
}

if (!isMainThread) runWorker();

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
import { connect } from 'node:net';
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

  const openOne = (sub) =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) });
      socket.setNoDelay(true);
      sockets.push(socket);
      // Bytes as latin1: one char per byte, so chunk sizes count in chars; the marks and texts matched are ASCII.
      let raw = '';
      let head = true;
      /** The event-stream text decoded from the chunks, up to the last whole frame. */
      let text = '';
      const seen = new Set();
      socket.on('error', reject);
      socket.on('connect', () =>
        socket.write(
          `GET ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\naccept: text/event-stream\r\nx-apikey: ${sub.key}\r\n\r\n`,
        ),
      );
      socket.on('data', (data) => {
        raw += data.toString('latin1');
        if (head) {
          const end = raw.indexOf('\r\n\r\n');
          if (end < 0) return;
          const lines = raw.slice(0, end).toLowerCase();
          if (!lines.startsWith('http/1.1 200 ')) return reject(new Error(`stream answered ${lines.slice(0, 40)}`));
          if (!lines.includes('\r\ntransfer-encoding: chunked')) return reject(new Error('stream is not chunked'));
          head = false;
          raw = raw.slice(end + 4);
          resolve();
        }
        let at = 0;
        for (;;) {
          const eol = raw.indexOf('\r\n', at);
          if (eol < 0) break;
          const size = Number.parseInt(raw.slice(at, eol), 16);
          if (!(size >= 0)) {
            broken++;
            socket.destroy();
            return;
          }
          const end = eol + 2 + size;
          if (raw.length < end + 2) break;
          if (raw.charCodeAt(end) !== 13 || raw.charCodeAt(end + 1) !== 10) {
            broken++;
            socket.destroy();
            return;
          }
          text += raw.slice(eol + 2, end);
          at = end + 2;
        }
        raw = at === raw.length ? '' : raw.slice(at);
        let from = 0;
        let cut;
        while ((cut = text.indexOf('\n\n', from)) >= 0) {
          frameOf(sub, seen, text.slice(from, cut));
          from = cut + 2;
        }
        text = from === text.length ? '' : text.slice(from);
      });
    });

  parentPort.on('message', async (m) => {
    const reply = (answer) => parentPort.postMessage({ ...answer, id: m.id });
    try {
      if (m.type === 'open') {
        for (let from = 0; from < subscribers.length; from += 100)
          await Promise.all(subscribers.slice(from, from + 100).map(openOne));
        eluStart = performance.eventLoopUtilization();
        heartbeats = 0; // those while the streams were opened do not count
        reply({});
      } else if (m.type === 'await') {
        const a = arrivals.get(m.mark);
        if (m.count === 0 || (a && a.count >= m.count)) return reply({ first: a?.first ?? 0, last: a?.last ?? 0 });
        const timer = setTimeout(() => {
          waits.delete(m.mark);
          reply({ error: `${arrivals.get(m.mark)?.count ?? 0} of ${m.count} streams got ${m.mark}` });
        }, m.timeoutMs);
        waits.set(m.mark, {
          count: m.count,
          done: (got) => {
            clearTimeout(timer);
            waits.delete(m.mark);
            reply({ first: got.first, last: got.last });
          },
        });
      } else if (m.type === 'stats') {
        reply({
          wrong,
          duplicates,
          broken,
          heartbeats,
          utilisation: performance.eventLoopUtilization(eluStart).utilization,
        });
      } else if (m.type === 'close') {
        for (const s of sockets) s.destroy();
        reply({});
      }
    } catch (err) {
      reply({ error: String(err?.message ?? err) });
    }
  });
}

if (!isMainThread) runWorker();

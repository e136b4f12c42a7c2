// SSE subscribers for the fan-out benchmarks (notifications.mjs, storage-stream.mjs), held in worker threads: on 2
// cores, 10,000 streams parsed on the benchmark's own thread made the client the bottleneck, so the figure was partly
// the client's. Each worker holds a share of the streams, notes when a marked event (`"<field>":"<mark>"` in a frame)
// reaches each of them, and answers when all of its streams that should get a mark have it, with the last arrival
// (epoch ms: performance.timeOrigin + performance.now(), comparable across threads).
import { Agent, request as httpRequest } from 'node:http';
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
     * Resolves with the last arrival (epoch ms) of `mark` once every stream `expects(subscriber)` says should get it
     * has it; rejects after `timeoutMs`.
     */
    async awaitMark(mark, expects, timeoutMs = 10_000) {
      const answers = await Promise.all(
        workers.map((w, t) => ask(w, { type: 'await', mark, count: shares[t].filter(expects).length, timeoutMs })),
      );
      return Math.max(...answers.map((a) => a.last));
    },
    /**
     * Marked frames that reached a stream they should not have, and the busiest worker's event-loop utilisation since
     * its streams were open (near 1: the client, not the service, set the pace).
     */
    async stats() {
      const answers = await Promise.all(workers.map((w) => ask(w, { type: 'stats' })));
      return {
        wrong: answers.reduce((n, a) => n + a.wrong, 0),
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
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const requests = [];
  /** mark -> { count, last } */
  const arrivals = new Map();
  /** mark -> { count, done } of a pending await */
  const waits = new Map();
  let wrong = 0;
  const pattern = new RegExp(`"${field}":"([^"]+)"`);
  let eluStart;

  const arrived = (mark) => {
    const a = arrivals.get(mark) ?? { count: 0, last: 0 };
    a.count++;
    a.last = now();
    arrivals.set(mark, a);
    const w = waits.get(mark);
    if (w && a.count >= w.count) w.done(a);
  };

  const openOne = (sub) =>
    new Promise((resolve, reject) => {
      const req = httpRequest(`${url}${path}`, { agent, headers: { 'x-apikey': sub.key } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk) => {
          buf += chunk;
          let cut;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            const m = pattern.exec(frame);
            if (!m) continue;
            if (sub.mustContain !== undefined && !frame.includes(sub.mustContain)) wrong++;
            arrived(m[1]);
          }
        });
        resolve();
      });
      req.on('error', reject);
      req.end();
      requests.push(req);
    });

  parentPort.on('message', async (m) => {
    const reply = (answer) => parentPort.postMessage({ ...answer, id: m.id });
    try {
      if (m.type === 'open') {
        for (let from = 0; from < subscribers.length; from += 100)
          await Promise.all(subscribers.slice(from, from + 100).map(openOne));
        eluStart = performance.eventLoopUtilization();
        reply({});
      } else if (m.type === 'await') {
        const a = arrivals.get(m.mark);
        if (m.count === 0 || (a && a.count >= m.count)) return reply({ last: a?.last ?? 0 });
        const timer = setTimeout(() => {
          waits.delete(m.mark);
          reply({ error: `${arrivals.get(m.mark)?.count ?? 0} of ${m.count} streams got ${m.mark}` });
        }, m.timeoutMs);
        waits.set(m.mark, {
          count: m.count,
          done: (got) => {
            clearTimeout(timer);
            waits.delete(m.mark);
            reply({ last: got.last });
          },
        });
      } else if (m.type === 'stats') {
        reply({ wrong, utilisation: performance.eventLoopUtilization(eluStart).utilization });
      } else if (m.type === 'close') {
        for (const r of requests) r.destroy();
        reply({});
      }
    } catch (err) {
      reply({ error: String(err?.message ?? err) });
    }
  });
}

if (!isMainThread) runWorker();

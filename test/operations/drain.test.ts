// The graceful shutdown as an operator's deploy sees it, with the built service as real processes: SIGTERM turns
// /readyz 503 at once while requests go on being served, live streams end with a `reconnect` event, a request still
// arriving is finished, and the process exits 0; on PostgreSQL a stream's client moves to a second instance and resumes
// by Last-Event-ID without losing an event.
import { request as httpRequest } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { openSse } from '../helpers/sse-client.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import { ITEM, keyed, OPS_CONFIG, OPS_KEY, processPlace } from './process-kit.js';

const PROCESS_TEST_MS = 120_000;
const STORE = '/cxf/svc-core/storage/store/drain-store';
const NOTIFICATIONS = '/cxf/svc-core/notification';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(25);
  }
}

function exitOf(service: ServiceProcess): Promise<{ code: number | null; signal: string | null }> {
  if (service.child.exitCode !== null || service.child.signalCode !== null)
    return Promise.resolve({ code: service.child.exitCode, signal: service.child.signalCode });
  return new Promise((resolve) => service.child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** A create whose body the test sends in two parts: the request is in flight until `finish`. */
function slowCreate(url: string): { finish(): void; answer: Promise<{ status: number; body: string }> } {
  const target = new URL(`${url}${STORE}`);
  let answerResolve!: (a: { status: number; body: string }) => void;
  let answerReject!: (e: Error) => void;
  const answer = new Promise<{ status: number; body: string }>((res, rej) => {
    answerResolve = res;
    answerReject = rej;
  });
  const req = httpRequest(
    {
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      headers: { 'x-apikey': OPS_KEY, 'content-type': 'application/json' },
    },
    (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => answerResolve({ status: res.statusCode ?? 0, body }));
      res.on('error', answerReject);
    },
  );
  req.on('error', answerReject);
  const text = JSON.stringify(ITEM);
  req.flushHeaders();
  req.write(text.slice(0, 5));
  return { finish: () => req.end(text.slice(5)), answer };
}

describeEachEngine('graceful drain on SIGTERM', (engine) => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups.length = 0;
  });

  it(
    'answers 503 on /readyz at once, serves every request of the drain, ends streams with reconnect, exits 0',
    async () => {
      const place = await processPlace(engine);
      cleanups.push(() => place.cleanup());
      const config = { ...OPS_CONFIG, server: { drainSeconds: 6, shutdownGraceSeconds: 30 } };
      const service = await startServiceProcess({ config, workDir: place.dir, env: place.env });
      cleanups.push(() => service.kill());
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
      const stream = await openSse(`${service.url}${NOTIFICATIONS}/stream`, { 'x-apikey': OPS_KEY });
      expect(stream.status).toBe(200);
      const slow = slowCreate(service.url);
      // The slow request has reached the service (routed, its body awaited) before the signal.
      await until(async () => {
        const res = await fetch(`${service.url}/livez`);
        await res.arrayBuffer();
        return res.ok;
      });
      const exited = exitOf(service);

      service.child.kill('SIGTERM');
      let notReady: Response | undefined;
      await until(async () => {
        notReady = await fetch(`${service.url}/readyz`);
        return notReady.status === 503;
      });
      expect(((await notReady!.json()) as { error: { message: string } }).error.message).toBe(
        'Not ready: the instance is shutting down',
      );

      // What a load balancer still sends while it notices: every request served, each answer closing its connection.
      const during = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await fetch(`${service.url}${i % 2 ? '/livez' : STORE}`, i % 2 ? {} : keyed(ITEM));
          await res.arrayBuffer();
          return { status: res.status, connection: res.headers.get('connection') };
        }),
      );
      // Sent and answered within the drain (6 s; this takes well under a second unless the machine is swamped).
      expect(stream.events.filter((e) => e.event === 'reconnect')).toEqual([]);
      expect(during.map((d) => d.status)).toEqual(Array(20).fill(200));
      expect(new Set(during.map((d) => d.connection))).toEqual(new Set(['close']));

      // The drain is over: the stream ends with the reconnect event, after which the slow request's body completes.
      const [reconnect] = await stream.waitFor(1, 'reconnect', 30_000);
      expect(reconnect.id).toBeUndefined();
      expect(JSON.parse(reconnect.data)).toMatchObject({ reason: 'shutdown' });
      await stream.closed;
      slow.finish();
      const answer = await slow.answer;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).id).toEqual(expect.any(String));
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(service.output()).not.toMatch(/"level":(50|60)/);
      expect(service.output()).toContain(`"msg":"not ready: the instance is shutting down"`);
    },
    PROCESS_TEST_MS,
  );

  if (engine === 'postgres') {
    it(
      'moves a notification stream to a second instance, which resumes by Last-Event-ID without losing an event',
      async () => {
        const place = await processPlace(engine);
        cleanups.push(() => place.cleanup());
        const a = await startServiceProcess({
          config: { ...OPS_CONFIG, server: { drainSeconds: 1 } },
          workDir: place.dir,
          env: place.env,
        });
        cleanups.push(() => a.kill());
        const b = await startServiceProcess({ config: OPS_CONFIG, workDir: place.dir, env: place.env });
        cleanups.push(() => b.kill());

        const first = await openSse(`${a.url}${NOTIFICATIONS}/stream`, { 'x-apikey': OPS_KEY });
        expect(first.status).toBe(200);
        // A writer adds notifications through B without pause, before, during and after A's shutdown.
        const posted: string[] = [];
        let writing = true;
        cleanups.push(() => (writing = false));
        const writer = (async () => {
          for (let n = 0; writing; n++) {
            const res = await fetch(`${b.url}${NOTIFICATIONS}`, {
              method: 'POST',
              headers: { 'x-apikey': OPS_KEY, 'content-type': 'application/json' },
              body: JSON.stringify({ subject: `n-${n}`, recipients: ['WRITER'], recipientsType: 'role' }),
            });
            if (res.status !== 200) throw new Error(`add failed: ${res.status} ${await res.text()}`);
            posted.push(((await res.json()) as { id: string }).id);
          }
        })();
        await first.waitFor(5, 'notification', 30_000);
        const exited = exitOf(a);
        a.child.kill('SIGTERM');
        await first.waitFor(1, 'reconnect', 30_000);
        await first.closed;
        const fromA = first.events.filter((e) => e.event === 'notification');
        const lastEventId = fromA[fromA.length - 1].id!;

        // The client follows the reconnect event to the other instance, with the id of the last event it got.
        const second = await openSse(`${b.url}${NOTIFICATIONS}/stream`, {
          'x-apikey': OPS_KEY,
          'last-event-id': lastEventId,
        });
        expect(second.status).toBe(200);
        const postedBefore = posted.length;
        await until(async () => posted.length >= postedBefore + 5);
        writing = false;
        await writer;
        await second.waitFor(posted.length - fromA.length, 'notification', 30_000);

        const ids = [...fromA, ...second.events.filter((e) => e.event === 'notification')].map(
          (e) => (JSON.parse(e.data) as { notification: { id: string } }).notification.id,
        );
        expect(ids).toEqual(posted); // every one, in order, none twice
        expect(second.events.filter((e) => e.event === 'reset')).toEqual([]);
        expect(await exited).toEqual({ code: 0, signal: null });
        second.close();
      },
      PROCESS_TEST_MS,
    );
  }
});

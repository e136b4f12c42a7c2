// The SDK's live streams against the real service: notifications.subscribe over fetch with each kind of credential,
// `reset` surfaced, refusals reported without a retry loop, unsubscribe ending the request on the server, and (with
// the built service as a process) resume across a restart without lost or duplicated events.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ApiError,
  createClient,
  type NotificationStreamEvent,
  type StreamState,
  type SvcClient,
  unwrap,
} from '../../sdk/src/index.js';
import {
  createProcessDatabase,
  makeWorkDir,
  type ServiceProcess,
  startServiceProcess,
} from '../helpers/service-process.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { ALICE, type ListeningApp, ROBOT_KEY, SDK_CONFIG, startListening, TENANT } from './sdk-kit.js';

/** Waits for a condition (never a fixed sleep); the deadline only turns a hang into a failure. */
async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** What a subscription saw: its events and states, and the errors it reported. */
function recorder() {
  const events: NotificationStreamEvent[] = [];
  const states: StreamState[] = [];
  const errors: unknown[] = [];
  return {
    events,
    states,
    errors,
    onEvent: (e: NotificationStreamEvent) => events.push(e),
    options: { onStateChange: (s: StreamState) => states.push(s), onError: (e: unknown) => errors.push(e) },
    subjects: () => events.flatMap((e) => (e.type === 'notification' ? [e.notification.subject] : [])),
  };
}

const notify = (client: SvcClient, subject: string, recipients = ['clerk']) =>
  unwrap(client.POST('/cxf/svc-core/notification', { body: { subject, recipients, recipientsType: 'role' } }));

describeEachEngine('sdk notifications.subscribe', (engine) => {
  let s: ListeningApp;
  let robot: SvcClient;
  const streams = { opened: 0, closed: 0 };
  const stops: (() => void)[] = [];

  beforeAll(async () => {
    s = await startListening(engine);
    robot = createClient({ baseUrl: s.baseUrl, auth: { apiKey: ROBOT_KEY } });
    // The server's view of the streams: a stream request's response closes when the client goes.
    s.t.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!req.url?.startsWith('/cxf/svc-core/notification/stream')) return;
      streams.opened++;
      res.on('close', () => streams.closed++);
    });
  });
  afterAll(async () => {
    for (const stop of stops) stop();
    await s.t.close();
  });

  it('delivers add, update and delete events with ids, state connecting then open (API key)', async () => {
    const r = recorder();
    stops.push(robot.notifications.subscribe(r.onEvent, r.options));
    await until(() => r.states.includes('open'), 'open');
    expect(r.states).toEqual(['connecting', 'open']);
    const created = (await notify(robot, 'n-1')) as { id: string };
    await robot.PUT('/cxf/svc-core/notification/{notificationId}', {
      params: { path: { notificationId: created.id } },
      body: { subject: 'n-1 changed', recipients: ['clerk'], recipientsType: 'role' },
    });
    await robot.DELETE('/cxf/svc-core/notification/{notificationId}', {
      params: { path: { notificationId: created.id } },
    });
    await until(() => r.events.length >= 3, '3 events');
    expect(r.events.map((e) => e.type === 'notification' && [e.action, e.notification.subject])).toEqual([
      ['add', 'n-1'],
      ['update', 'n-1 changed'],
      ['delete', 'n-1 changed'],
    ]);
    const ids = r.events.map((e) => Number(e.type === 'notification' && e.eventId));
    expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]))).toBe(true);
    expect(r.errors).toEqual([]);
  });

  it('session mode: the stream carries the kept cookie; a bearer token works as well', async () => {
    const alice = createClient({ baseUrl: s.baseUrl, auth: { session: true } });
    await alice.login({ tenant: TENANT, ...ALICE });
    const minted = await unwrap(robot.POST('/cxf/svc-core/authentication/token'));
    const bearer = createClient({ baseUrl: s.baseUrl, auth: { bearer: async () => minted.access_token } });
    const bySession = recorder();
    const byToken = recorder();
    stops.push(alice.notifications.subscribe(bySession.onEvent, bySession.options));
    stops.push(bearer.notifications.subscribe(byToken.onEvent, byToken.options));
    await until(() => bySession.states.includes('open') && byToken.states.includes('open'), 'both open');
    await notify(robot, 'for clerks');
    await notify(robot, 'for others', ['someone-else']);
    await notify(robot, 'for clerks again');
    await until(() => bySession.events.length >= 2 && byToken.events.length >= 3, 'events');
    // alice (role clerk) sees what clerks get; the robot's token (NOTIFICATION_ADMIN) sees everything.
    expect(bySession.subjects()).toEqual(['for clerks', 'for clerks again']);
    expect(byToken.subjects()).toEqual(['for clerks', 'for others', 'for clerks again']);
  });

  it('surfaces reset when the service cannot resume from the given id, then delivers live events', async () => {
    const r = recorder();
    stops.push(robot.notifications.subscribe(r.onEvent, { ...r.options, lastEventId: 'not-a-number' }));
    await until(() => r.events.length >= 1, 'reset');
    expect(r.events[0]).toMatchObject({ type: 'reset', reason: 'invalid', message: expect.any(String) });
    await notify(robot, 'after reset');
    await until(() => r.events.length >= 2, 'event after reset');
    expect(r.subjects()).toEqual(['after reset']);
  });

  it('resumes from lastEventId: replays what came after it, nothing before', async () => {
    const first = recorder();
    const stop = robot.notifications.subscribe(first.onEvent, first.options);
    await until(() => first.states.includes('open'), 'open');
    await notify(robot, 'r-1');
    await until(() => first.events.length >= 1, 'r-1');
    stop();
    await notify(robot, 'r-2');
    await notify(robot, 'r-3');
    const from = first.events[0].type === 'notification' ? first.events[0].eventId : undefined;
    const second = recorder();
    stops.push(robot.notifications.subscribe(second.onEvent, { ...second.options, lastEventId: from }));
    await until(() => second.events.length >= 2, 'replay');
    expect(second.subjects()).toEqual(['r-2', 'r-3']);
  });

  it('unsubscribe aborts the request: the server sees the stream closed; the state ends closed', async () => {
    await until(() => streams.opened === streams.closed + stops.length, 'earlier streams settled');
    const before = { ...streams };
    const r = recorder();
    const stop = robot.notifications.subscribe(r.onEvent, r.options);
    await until(() => r.states.includes('open') && streams.opened === before.opened + 1, 'open');
    expect(streams.closed).toBe(before.closed);
    stop();
    await until(() => streams.closed === before.closed + 1, 'the server to see the stream closed');
    await until(() => r.states.at(-1) === 'closed', 'closed');
    expect(r.states).toEqual(['connecting', 'open', 'closed']);
    // A subscription still open sees the next event; the stopped one sees nothing after stop().
    const watcher = recorder();
    stops.push(robot.notifications.subscribe(watcher.onEvent, watcher.options));
    await until(() => watcher.states.includes('open'), 'watcher open');
    await notify(robot, 'after unsubscribe');
    await until(() => watcher.events.length >= 1, 'the watcher to see the event');
    expect(r.events).toEqual([]);
    stop(); // idempotent
  });

  it('a refused stream reports ApiError and ends closed, without a retry loop', async () => {
    const before = streams.opened;
    const anonymous = createClient({ baseUrl: s.baseUrl });
    const r = recorder();
    anonymous.notifications.subscribe(r.onEvent, r.options);
    await until(() => r.states.at(-1) === 'closed', 'closed');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toBeInstanceOf(ApiError);
    expect(r.errors[0]).toMatchObject({ status: 401, code: 540 });
    expect(streams.opened - before).toBe(1);
  });
});

describeEachEngine('sdk notifications.subscribe across a service restart', (engine) => {
  const work = makeWorkDir();
  const cleanups: (() => Promise<void> | void)[] = [() => work.cleanup()];
  let env: Record<string, string> = {};
  let svc: ServiceProcess | undefined;

  beforeAll(async () => {
    if (engine === 'postgres') {
      const database = await createProcessDatabase(inject('pgUrl'));
      cleanups.push(() => database.drop());
      env = { DATABASE_URL: database.url };
    }
  });
  afterAll(async () => {
    await svc?.kill();
    for (const c of cleanups.reverse()) await c();
  });

  it('resumes with Last-Event-ID after the service closed the stream: no event lost, none twice', async () => {
    const config = { ...SDK_CONFIG, server: { shutdownGraceSeconds: 1 } };
    svc = await startServiceProcess({ config, workDir: work.dir, env });
    // The subscriber reaches whichever process runs now (as through a load balancer); its stream requests wait at a
    // gate while the test holds it closed, so events are written while it is away.
    let gate: Promise<void> = Promise.resolve();
    let openGate = () => {};
    const sentLastEventIds: (string | null)[] = [];
    const subscriber = createClient({
      baseUrl: 'http://service.invalid',
      auth: { apiKey: ROBOT_KEY },
      fetch: async (request) => {
        const url = new URL(request.url);
        if (url.pathname.endsWith('/stream')) {
          await gate;
          sentLastEventIds.push(request.headers.get('last-event-id'));
        }
        const target = new URL(url.pathname + url.search, svc!.url);
        return fetch(new Request(target, request));
      },
    });
    const writer = () => createClient({ baseUrl: svc!.url, auth: { apiKey: ROBOT_KEY } });
    const r = recorder();
    const stop = subscriber.notifications.subscribe(r.onEvent, r.options);
    try {
      await until(() => r.states.includes('open'), 'open');
      for (const n of [1, 2, 3]) await notify(writer(), `e-${n}`);
      await until(() => r.events.length >= 3, 'e-1..e-3');

      gate = new Promise((resolve) => (openGate = resolve));
      await svc.stop();
      await until(() => r.states.at(-1) === 'connecting', 'the subscriber to notice the closed stream');
      svc = await startServiceProcess({ config, workDir: work.dir, env });
      for (const n of [4, 5, 6]) await notify(writer(), `e-${n}`);
      openGate();
      await until(() => r.events.length >= 6, 'the replay of e-4..e-6');
      for (const n of [7, 8, 9]) await notify(writer(), `e-${n}`);
      await until(() => r.events.length >= 9, 'e-7..e-9');
    } finally {
      stop();
    }
    expect(r.subjects()).toEqual(['e-1', 'e-2', 'e-3', 'e-4', 'e-5', 'e-6', 'e-7', 'e-8', 'e-9']);
    const ids = r.events.map((e) => (e.type === 'notification' ? e.eventId : undefined));
    expect(new Set(ids).size).toBe(9);
    expect(r.events.every((e) => e.type === 'notification')).toBe(true);
    // The first connect sent no id; the reconnect to the new process sent the id of e-3.
    expect(sentLastEventIds[0]).toBeNull();
    expect(sentLastEventIds.at(-1)).toBe(ids[2]);
    expect(r.states.filter((s) => s === 'open').length).toBeGreaterThanOrEqual(2);
  }, 180_000);
});

describe('sdk live helpers', () => {
  it('exports the reconnect constants of the issue', async () => {
    const { BACKOFF_FIRST_MS, BACKOFF_MAX_MS } = await import('../../sdk/src/index.js');
    expect([BACKOFF_FIRST_MS, BACKOFF_MAX_MS]).toEqual([200, 5_000]);
  });
});

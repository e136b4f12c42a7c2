// The credential throttle on the process engine (issue 40, findings 5, 9 and 14): Basic on /engine/rest for both user
// types and the data management endpoint reserve an attempt before any password is verified, and the 30 s cache of
// verified passwords is no way around it (the right password after a burst is 429, not 200); credentials are checked
// only where userType says (401, never a 403 that reveals the other type); a NUL in a decoded Basic name is 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';

const PAIR_BUDGET = 5;
const ENGINE = {
  users: [
    { name: 'eng', password: 'eng-pass-1', groups: [], roles: ['ops'] },
    { name: 'dm', password: 'dm-pass-1', groups: ['DataManagement'], roles: [] },
  ],
  processUserServer: { type: 'platform', tenant: 'default' },
};
const TENANTS = [
  {
    name: 'default',
    users: [
      { loginName: 'alice', password: 'alice-pass-1', roles: ['R1'] },
      { loginName: 'bob', password: 'bob-pass-1' },
    ],
  },
];
const CONFIG = {
  identity: {
    loginThrottle: {
      maxFailuresPerAccountAndAddress: PAIR_BUDGET,
      maxFailuresPerAccount: 20,
      maxFailuresPerAddress: 1000,
    },
  },
  tenants: TENANTS,
  engine: ENGINE,
};
const ATTACKER = '127.0.0.2';
const OWNER = '127.0.0.3';
const DM_PATH = '/engine/servlet/UploadServlet/api_protocol';
const DM_CALL = { context: 'Template', method: 'query', parameters: {} };

const basic = (name: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`,
});

function expectThrottled(res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(429);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.json().error).toMatchObject({ messageKey: 'CORE_ERROR_TOO_MANY_REQUESTS', code: 429 });
}

describeEachEngine('credential throttle: the engine', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, CONFIG);
  });
  afterAll(() => t.close());

  const whoami = (userType: string, name: string, password: string, remoteAddress = ATTACKER) =>
    t.request({
      method: 'GET',
      url: `/engine/rest/whoami?userType=${userType}`,
      headers: basic(name, password),
      remoteAddress,
    });
  const dmCall = (name: string, password: string, remoteAddress = ATTACKER) =>
    t.request({
      method: 'POST',
      url: DM_PATH,
      headers: { ...basic(name, password), 'content-type': 'application/json' },
      payload: DM_CALL,
      remoteAddress,
    });

  /** The owner's call primes the cache of verified passwords; a burst from the attacker's address follows. */
  async function burst(
    send: (password: string, remoteAddress?: string) => Promise<LightMyRequestResponse>,
    right: string,
  ) {
    expect((await send(right, OWNER)).statusCode).toBe(200);
    const before = t.security.passwordVerifications;
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => send(i === 199 ? right : `guess-${i}`)));
    expect(answers.filter((r) => r.statusCode === 200)).toEqual([]);
    expect(answers.filter((r) => r.statusCode === 401).length).toBeLessThanOrEqual(PAIR_BUDGET);
    for (const r of answers.filter((r) => r.statusCode !== 401)) expectThrottled(r);
    // The right password after the burst, from the attacker's address: 429, although the cache knows it.
    expectThrottled(await send(right));
    expect(t.security.passwordVerifications - before).toBeLessThanOrEqual(PAIR_BUDGET);
    // The owner, from another address, is not locked out.
    expect((await send(right, OWNER)).statusCode).toBe(200);
  }

  it('Basic as processEngineUser: a burst of 200 verifies at most the budget, the right password then 429', async () => {
    await burst((password, address) => whoami('processEngineUser', 'eng', password, address), 'eng-pass-1');
  });

  it('Basic as processUser (the platform as Process User Server): the same', async () => {
    await burst((password, address) => whoami('processUser', 'alice', password, address), 'alice-pass-1');
  });

  it('the data management endpoint: the same', async () => {
    await burst((password, address) => dmCall('dm', password, address), 'dm-pass-1');
  });

  describe('one client with the right password on many connections at once is one attempt, never throttled', () => {
    // Each reservation counts as a failure until it succeeds: 50 concurrent first calls of one client reserved 50
    // attempts before the first verification ended, and all but the budget were answered 429 (the engine benchmark).
    it.each([
      ['processEngineUser', (address: string) => whoami('processEngineUser', 'eng', 'eng-pass-1', address)],
      ['processUser', (address: string) => whoami('processUser', 'alice', 'alice-pass-1', address)],
      ['data management', (address: string) => dmCall('dm', 'dm-pass-1', address)],
    ])('%s: 50 parallel calls all answer 200 with one verification', async (name, send) => {
      const address = `127.0.1.${name.length}`;
      // The verified-password cache is per user, and the owner's calls above may have filled it: a fresh password
      // cannot be set, so the cold case is checked by the count of verifications (0 or 1, never more).
      const before = t.security.passwordVerifications;
      const answers = await Promise.all(Array.from({ length: 50 }, () => send(address)));
      expect(answers.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
      expect(t.security.passwordVerifications - before).toBeLessThanOrEqual(1);
    });

    it('50 parallel identical wrong passwords are one guess: one verification, all 401, the budget nearly whole', async () => {
      const address = '127.0.2.1';
      const before = t.security.passwordVerifications;
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => whoami('processEngineUser', 'eng', 'same-guess', address)),
      );
      expect(answers.map((r) => r.statusCode)).toEqual(Array(50).fill(401));
      expect(t.security.passwordVerifications - before).toBe(1);
      expect((await whoami('processEngineUser', 'eng', 'eng-pass-1', address)).statusCode).toBe(200);
    });
  });

  describe('credentials are checked only where userType says (decisions section 11)', () => {
    it.each([
      ['an engine user as processUser', 'processUser', 'eng', 'eng-pass-1'],
      ['a process user as processEngineUser', 'processEngineUser', 'bob', 'bob-pass-1'],
    ])('%s: 401 with the error object, never 403', async (_name, userType, name, password) => {
      const res = await whoami(userType, name, password, '127.0.0.4');
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toMatchObject({
        messageKey: 'CORE_ERROR_IDENTITY_PROVIDER_AUTHENTICATION_FAILED',
        code: 540,
      });
    });

    it('403 stays for a verified caller without the needed group or user type', async () => {
      expect((await dmCall('eng', 'eng-pass-1', '127.0.0.4')).statusCode).toBe(403);
      const post = await t.request({
        method: 'POST',
        url: '/engine/rest/tasks?userType=processUser',
        headers: { ...basic('bob', 'bob-pass-1'), 'content-type': 'application/json' },
        payload: { name: 'sneaky', roles: ['R1'] },
        remoteAddress: '127.0.0.4',
      });
      expect(post.statusCode).toBe(403);
    });
  });

  describe('a NUL in a decoded Basic user name or password is 400, never a 500', () => {
    it.each([
      ['/engine/rest as processUser', () => whoami('processUser', 'a\u0000b', 'pw', '127.0.0.5')],
      ['/engine/rest as processEngineUser', () => whoami('processEngineUser', 'a\u0000b', 'pw', '127.0.0.5')],
      ['/engine/rest, in the password', () => whoami('processUser', 'alice', 'a\u0000b', '127.0.0.5')],
      ['the data management endpoint', () => dmCall('a\u0000b', 'pw', '127.0.0.5')],
    ])('%s', async (_name, send) => {
      const res = await send();
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 400, name: 'VALIDATION_FAILED' });
    });
  });
});

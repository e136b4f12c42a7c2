// The data management API's context Asset: versions and activation (the spec's state table), validation against the
// template, child assets, queries over the ACTIVE versions (filters, sorters, sort modes, verbosity), actions (export,
// webhook) and saved queries, on both engines.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';
import { thorough } from '../helpers/thorough.js';

const URL_ = '/engine/servlet/UploadServlet/api_protocol';
const basic = (name: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`,
});
const USERS = [
  { name: 'dm', password: 'dm-pass-1', groups: ['DataManagement'], roles: ['engineer'] },
  { name: 'dm2', password: 'dm-pass-2', groups: ['DataManagement'], roles: [] },
];

type Call = (
  method: string,
  parameters: unknown,
  user?: [string, string],
) => Promise<{ statusCode: number; json: () => any; body: string }>;

function caller(t: () => TestApp, context: string): Call {
  return (method, parameters, user = ['dm', 'dm-pass-1']) =>
    t().request({
      method: 'POST',
      url: URL_,
      headers: { ...basic(...user), 'content-type': 'application/json' },
      payload: JSON.stringify({ context, method, parameters }),
    });
}

const PUMP = {
  customId: 'pump',
  name: 'Pump',
  attributes: [
    { key: 'dm:serial', type: 'string', required: true },
    { key: 'dm:power', type: 'number' },
    { key: 'dm:state', type: 'enum', values: ['new', 'used'], default: 'new' },
    { key: 'dm:secret', type: 'string', hidden: true },
    { key: 'dm:location', type: 'string', versioned: false, group: 'Site/Details' },
    { key: 'dm:note', type: 'text', group: 'Notes' },
  ],
  childTemplates: ['valve'],
  actions: [
    { key: 'csv', scope: 'asset', handler: { type: 'export', format: 'csv', fileName: 'pumps' } },
    { key: 'json', scope: 'asset', handler: { type: 'export', format: 'json' } },
    { key: 'all', scope: 'template', handler: { type: 'export', format: 'csv' } },
    {
      key: 'hook',
      scope: 'asset',
      parameters: [{ key: 'why', type: 'string', required: true }],
      handler: { type: 'webhook', webhook: 'hook' },
    },
  ],
};
const VALVE = { customId: 'valve', name: 'Valve', attributes: [{ key: 'dm:size', type: 'integer' }] };

async function setUp(
  inactiveVersions: boolean,
  engine: Parameters<typeof startTestApp>[0],
  extra: Record<string, unknown> = {},
) {
  const app = await startTestApp(engine, { engine: { users: USERS, inactiveVersions, ...extra } });
  const tpl = caller(() => app, 'Template');
  for (const t of [PUMP, VALVE]) expect((await tpl('create', { template: t })).statusCode).toBe(200);
  return app;
}

describeEachEngine('data management API: assets, versions and validation', (engine) => {
  let t: TestApp;
  const asset = caller(() => t, 'Asset');
  const tpl = caller(() => t, 'Template');
  const create = async (a: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const res = await asset('create', { asset: { template: { customId: 'pump' }, ...a }, return: true, ...extra });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().asset;
  };

  beforeAll(async () => {
    t = await setUp(false, engine);
  });
  afterAll(() => t.close());

  it('creates an asset (defaults applied, createdBy the engine user) and gets it by id and by customId with its template', async () => {
    const a = await create({
      customId: 'p-1',
      displayName: 'Pump one',
      attributes: { 'dm:serial': 'S1', 'dm:power': 2.5 },
      unversionedAttributes: { 'dm:location': 'Hall A' },
    });
    expect(a).toMatchObject({
      customId: 'p-1',
      template: { customId: 'pump' },
      displayName: 'Pump one',
      parentId: null,
      attributes: { 'dm:serial': 'S1', 'dm:power': 2.5, 'dm:state': 'new' },
      unversionedAttributes: { 'dm:location': 'Hall A' },
      version: { updatedBy: 'dm', comment: '', active: true },
      createdBy: 'dm',
    });
    expect(a.version.updatedOn).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect((await asset('get', { id: a.id })).json()).toEqual({ asset: a });
    expect((await asset('get', { customId: 'p-1', templateCustomId: 'pump' })).json()).toEqual({ asset: a });
    expect((await asset('get', { customId: 'p-1', templateId: a.template.id })).json()).toEqual({ asset: a });
    const plain = await asset('create', { templateCustomId: 'pump', asset: { attributes: { 'dm:serial': 'S0' } } });
    expect(Object.keys(plain.json().asset)).toEqual(['id']);
    expect((await asset('get', { id: 999_999 })).statusCode).toBe(404);
    expect((await asset('get', { id: 999_999, optional: true })).json()).toEqual({});
    const hidden = (await asset('get', { id: a.id, withoutHiddenAttributes: true })).json().asset;
    expect(hidden.attributes).not.toHaveProperty('dm:secret');
  });

  it('each update of versioned data makes a version with a unique updatedOn; HEAD, ACTIVE, PREVIOUS and NEXT read them', async () => {
    const a = await create({ customId: 'p-versions', attributes: { 'dm:serial': 'V1' } });
    const updatedOns = [a.version.updatedOn];
    for (const serial of ['V2', 'V3']) {
      const res = await asset('update', {
        asset: { id: a.id, attributes: { 'dm:serial': serial } },
        versionComment: `to ${serial}`,
        return: true,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().asset.attributes['dm:serial']).toBe(serial);
      updatedOns.push(res.json().asset.version.updatedOn);
    }
    expect(new Set(updatedOns).size).toBe(3);
    expect([...updatedOns].sort()).toEqual(updatedOns);
    const at = async (parameters: Record<string, unknown>) =>
      (await asset('get', { id: a.id, ...parameters })).json().asset;
    expect((await at({ updatedOn: 'HEAD' })).attributes['dm:serial']).toBe('V3');
    expect((await at({ updatedOn: updatedOns[0] })).attributes['dm:serial']).toBe('V1');
    expect((await at({ updatedOn: updatedOns[0] })).version).toMatchObject({ active: false, comment: '' });
    expect((await at({ updatedOn: updatedOns[1] })).version.comment).toBe('to V2');
    // PREVIOUS and NEXT, relative to the version read, at both ends of the history.
    const withOther = async (updatedOn: string, other: string) => (await at({ updatedOn, other })).allVersions;
    const expanded = (versions: any[]) => versions.filter((v) => v.attributes).map((v) => v.attributes['dm:serial']);
    expect(expanded(await withOther(updatedOns[1], 'PREVIOUS'))).toEqual(['V1']);
    expect(expanded(await withOther(updatedOns[1], 'NEXT'))).toEqual(['V3']);
    expect(expanded(await withOther(updatedOns[0], 'PREVIOUS'))).toEqual([]);
    expect(expanded(await withOther(updatedOns[2], 'NEXT'))).toEqual([]);
    const all = await withOther('ACTIVE', 'HEAD');
    expect(all.map((v: any) => v.updatedOn)).toEqual([...updatedOns].reverse());
    expect(all.map((v: any) => v.active)).toEqual([true, false, false]);
    expect((await asset('get', { id: a.id, updatedOn: '2001-01-01T00:00:00.000Z' })).statusCode).toBe(404);
    expect((await asset('get', { id: a.id, updatedOn: 'yesterday' })).statusCode).toBe(400);
  });

  it('onlyIfChanged answers unchanged and writes nothing; unversionedAttributesOnly changes no version', async () => {
    const a = await create({
      customId: 'p-same',
      attributes: { 'dm:serial': 'X' },
      unversionedAttributes: { 'dm:location': 'A' },
    });
    const same = await asset('update', { asset: { id: a.id, attributes: { 'dm:serial': 'X' } }, onlyIfChanged: true });
    expect(same.json()).toEqual({ unchanged: true });
    const u = await asset('update', {
      asset: { id: a.id, unversionedAttributes: { 'dm:location': 'B' } },
      unversionedAttributesOnly: true,
      return: true,
    });
    expect(u.json().asset.unversionedAttributes).toEqual({ 'dm:location': 'B' });
    expect(u.json().asset.version.updatedOn).toBe(a.version.updatedOn);
    const history = (await asset('get', { id: a.id, other: 'HEAD' })).json().asset.allVersions;
    expect(history).toHaveLength(1);
    expect(
      (
        await asset('update', {
          asset: { id: a.id, attributes: { 'dm:serial': 'Y' } },
          unversionedAttributesOnly: true,
        })
      ).statusCode,
    ).toBe(400);
  });

  it.each([
    ['an unknown attribute', { attributes: { 'dm:serial': 'a', 'dm:colour': 'red' } }, 'dm:colour'],
    ['a value of the wrong type', { attributes: { 'dm:serial': 'a', 'dm:power': 'high' } }, 'number'],
    ['a value outside the enum', { attributes: { 'dm:serial': 'a', 'dm:state': 'broken' } }, 'dm:state'],
    ['a required attribute missing', { attributes: { 'dm:power': 1 } }, 'dm:serial'],
    [
      'an unversioned attribute among the versioned',
      { attributes: { 'dm:serial': 'a', 'dm:location': 'x' } },
      'unversioned',
    ],
    ['a field the asset does not have', { attributes: { 'dm:serial': 'a' }, colour: 'red' }, 'colour'],
    ['a parent that does not exist', { attributes: { 'dm:serial': 'a' }, parentId: 987_654 }, 'parentId'],
  ])('%s: 400 naming it, nothing written', async (_name, a, mentioned) => {
    const before = (await asset('query', { limit: 0 })).json().total;
    const res = await asset('create', { asset: { template: { customId: 'pump' }, ...a } });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().error)).toContain(mentioned);
    expect((await asset('query', { limit: 0 })).json().total).toBe(before);
  });

  it('requiredOverride skips the required check; customId is unique per template (409), not across templates', async () => {
    expect(
      (await asset('create', { asset: { template: { customId: 'pump' }, customId: 'loose' }, requiredOverride: true }))
        .statusCode,
    ).toBe(200);
    const again = await asset('create', {
      asset: { template: { customId: 'pump' }, customId: 'loose' },
      requiredOverride: true,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 409 });
    expect((await asset('create', { asset: { template: { customId: 'valve' }, customId: 'loose' } })).statusCode).toBe(
      200,
    );
    expect((await asset('create', { asset: { template: { customId: 'nobody' } } })).statusCode).toBe(404);
  });

  it('child assets: only of the child templates; delete of a parent is 409 unless unlinkChildAssets; no cycles', async () => {
    const parent = await create({ customId: 'parent', attributes: { 'dm:serial': 'P' } });
    const child = (
      await asset('create', {
        asset: { template: { customId: 'valve' }, customId: 'child-1', parentId: parent.id },
        return: true,
      })
    ).json().asset;
    expect(child.parentId).toBe(parent.id);
    // A pump cannot be a valve's child's parent's ... : pumps hold valves, valves hold nothing.
    expect(
      (
        await asset('create', {
          asset: { template: { customId: 'pump' }, attributes: { 'dm:serial': 'Q' }, parentId: child.id },
        })
      ).statusCode,
    ).toBe(400);
    const q = (
      await asset('query', { filters: [{ property: 'id', operator: 'eq', value: parent.id }], verbosity: 1 })
    ).json();
    expect(q.assets[0].joinedChildAssetIds).toEqual([child.id]);
    const q2 = (
      await asset('query', { filters: [{ property: 'id', operator: 'eq', value: parent.id }], verbosity: 2 })
    ).json();
    expect(q2.assets[0].childAssets.map((c: any) => c.id)).toEqual([child.id]);
    expect(q2.assets[0]).not.toHaveProperty('joinedChildAssetIds');
    const q5 = (
      await asset('query', {
        filters: [{ property: 'id', operator: 'in', value: [parent.id, child.id] }],
        sorters: [{ property: 'id' }],
        verbosity: 5,
      })
    ).json();
    expect(q5.assets).toEqual([
      {
        id: parent.id,
        text: 'parent',
        customId: 'parent',
        template: parent.template,
        parentId: null,
        leaf: false,
        childCount: 1,
        expanded: false,
      },
      {
        id: child.id,
        text: 'child-1',
        customId: 'child-1',
        template: child.template,
        parentId: parent.id,
        leaf: true,
        childCount: 0,
        expanded: false,
      },
    ]);
    const refused = await asset('delete', { id: parent.id });
    expect(refused.statusCode).toBe(409);
    expect((await asset('get', { id: parent.id })).statusCode).toBe(200);
    expect((await asset('delete', { id: parent.id, unlinkChildAssets: true })).json()).toEqual({});
    expect((await asset('get', { id: parent.id })).statusCode).toBe(404);
    expect((await asset('get', { id: child.id })).json().asset.parentId).toBeNull();
    expect((await asset('get', { id: parent.id, updatedOn: 'HEAD', optional: true })).json()).toEqual({});
  });

  it('a template with assets is not deleted (409); renaming it renames it in its assets and their queries', async () => {
    await tpl('create', { template: { customId: 'lamp', attributes: [] } });
    const a = (
      await asset('create', { asset: { template: { customId: 'lamp' }, customId: 'l-1' }, return: true })
    ).json().asset;
    expect((await tpl('delete', { customId: 'lamp' })).statusCode).toBe(409);
    expect(
      (await tpl('update', { template: { id: a.template.id, customId: 'light', attributes: [] } })).statusCode,
    ).toBe(200);
    expect((await asset('get', { id: a.id })).json().asset.template).toEqual({ id: a.template.id, customId: 'light' });
    const found = (
      await asset('query', { filters: [{ property: 'template.customId', operator: 'eq', value: 'light' }] })
    ).json();
    expect(found.assets.map((x: any) => x.id)).toEqual([a.id]);
    expect((await asset('delete', { customId: 'l-1', templateCustomId: 'light' })).statusCode).toBe(200);
    expect((await tpl('delete', { customId: 'light' })).statusCode).toBe(200);
  });

  it('concurrent updates of one asset: each keeps its change (none overwrites another) and makes its own version', async () => {
    const a = await create({ customId: 'p-concurrent', attributes: { 'dm:serial': 'C0' } });
    // Each update changes another attribute, read from the version before it: a write based on a stale read would
    // drop the others' changes (or reuse an updatedOn). With and without `return` (a transaction or one statement).
    const changes: Array<Record<string, unknown>> = [
      { 'dm:serial': 'C1' },
      { 'dm:power': 7 },
      { 'dm:state': 'used' },
      { 'dm:secret': 's' },
      { 'dm:note': 'n' },
      { 'dm:power': 7, 'dm:note': 'n' },
    ];
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        changes.map((attributes, i) =>
          asset('update', {
            asset: { id: a.id, attributes: round === 2 && i === 5 ? { 'dm:serial': 'C1' } : attributes },
            versionComment: `r${round}-${i}`,
            return: i % 2 === 0,
          }),
        ),
      );
      for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    }
    const head = (await asset('get', { id: a.id })).json().asset;
    expect(head.attributes).toMatchObject({
      'dm:serial': 'C1',
      'dm:power': 7,
      'dm:state': 'used',
      'dm:secret': 's',
      'dm:note': 'n',
    });
    const all = (await asset('get', { id: a.id, updatedOn: 'ACTIVE', other: 'HEAD' })).json().asset.allVersions;
    expect(all).toHaveLength(1 + 3 * changes.length);
    expect(new Set(all.map((v: any) => v.updatedOn)).size).toBe(all.length);
    expect(new Set(all.map((v: any) => v.comment)).size).toBe(all.length);
  });

  it('concurrent updates of many assets: each keeps its own version and index rows; one that takes a customId fails alone', async () => {
    const made = [];
    for (let i = 0; i < 12; i++) made.push(await create({ customId: `b-${i}`, attributes: { 'dm:serial': `B${i}` } }));
    // Single updates without `return`: on PostgreSQL the writes of one turn go as one statement.
    const answers = await Promise.all(
      made.map((a, i) =>
        asset('update', {
          asset:
            i === 11
              ? { id: a.id, customId: 'b-0' }
              : { id: a.id, attributes: { 'dm:serial': `B${i}-x`, 'dm:power': i } },
          versionComment: `c${i}`,
        }),
      ),
    );
    answers.slice(0, 11).forEach((res) => expect(res.statusCode, res.body).toBe(200));
    expect(answers[11].statusCode, answers[11].body).toBe(409);
    for (const i of [0, 3, 10]) {
      const found = (
        await asset('query', {
          filters: [{ property: 'attributes.dm:serial', operator: 'eq', value: `B${i}-x` }],
          verbosity: 1,
        })
      ).json();
      expect(found.assets.map((a: any) => a.customId)).toEqual([`b-${i}`]);
      expect(found.assets[0].attributes['dm:power']).toBe(i);
      expect(
        (
          await asset('query', { filters: [{ property: 'attributes.dm:serial', operator: 'eq', value: `B${i}` }] })
        ).json().total,
      ).toBe(0);
      const all = (await asset('get', { id: made[i].id, updatedOn: 'ACTIVE', other: 'HEAD' })).json().asset.allVersions;
      expect(all.map((v: any) => v.comment)).toEqual([`c${i}`, '']);
    }
    const untouched = (await asset('get', { id: made[11].id, updatedOn: 'ACTIVE', other: 'HEAD' })).json().asset;
    expect(untouched).toMatchObject({ customId: 'b-11', attributes: { 'dm:serial': 'B11' } });
    expect(untouched.allVersions).toHaveLength(1);
    expect(
      (await asset('query', { filters: [{ property: 'customId', operator: 'eq', value: 'b-11' }] })).json().total,
    ).toBe(1);
  });

  it('a batch of asset calls is all or nothing', async () => {
    const res = await t.request({
      method: 'POST',
      url: URL_,
      headers: { ...basic('dm', 'dm-pass-1'), 'content-type': 'application/json' },
      payload: JSON.stringify({
        requests: [
          {
            context: 'Asset',
            method: 'create',
            parameters: {
              asset: { template: { customId: 'pump' }, customId: 'batch-1', attributes: { 'dm:serial': 'B' } },
            },
          },
          {
            context: 'Asset',
            method: 'create',
            parameters: {
              asset: { template: { customId: 'pump' }, customId: 'batch-1', attributes: { 'dm:serial': 'B' } },
            },
          },
        ],
      }),
    });
    expect(res.statusCode).toBe(409);
    expect((await asset('get', { customId: 'batch-1', templateCustomId: 'pump', optional: true })).json()).toEqual({});
  });
});

const STATE_TABLE = [
  // [inactiveVersions, activationPolicy, HEAD active before the update] -> the new version is ACTIVE
  [false, 'true', true, true],
  [false, 'false', true, true],
  [false, 'ifHEADActive', true, true],
  [false, undefined, true, true],
  [true, 'true', true, true],
  [true, 'true', false, true],
  [true, 'false', true, false],
  [true, 'false', false, false],
  [true, 'ifHEADActive', true, true],
  [true, 'ifHEADActive', false, false],
  [true, undefined, true, true],
  [true, undefined, false, false],
] as const;

// One app per setting of inactiveVersions, shared by the rows of the state table and mode 3: each works on assets of
// its own (a fresh app per row cost 24 migrated databases, most of this file's time).
describeEachEngine('data management API: versions and activation', (engine) => {
  let withInactive: TestApp;
  let without: TestApp;
  beforeAll(async () => {
    [withInactive, without] = await Promise.all([setUp(true, engine), setUp(false, engine)]);
  });
  afterAll(async () => {
    await withInactive?.close();
    await without?.close();
  });

  it.each(STATE_TABLE)(
    'state table: inactiveVersions %s, activationPolicy %s, HEAD active %s: the new version is ACTIVE: %s',
    async (inactiveVersions, policy, headActive, newIsActive) => {
      const asset = caller(() => (inactiveVersions ? withInactive : without), 'Asset');
      const a = (
        await asset('create', {
          asset: { template: { customId: 'pump' }, attributes: { 'dm:serial': 'v1' } },
          return: true,
        })
      ).json().asset;
      if (!headActive) {
        // A second version left inactive makes HEAD inactive.
        const r = await asset('update', {
          asset: { id: a.id, attributes: { 'dm:serial': 'v2' } },
          activationPolicy: 'false',
        });
        expect(r.statusCode).toBe(200);
      }
      const res = await asset('update', {
        asset: { id: a.id, attributes: { 'dm:serial': 'new' } },
        ...(policy ? { activationPolicy: policy } : {}),
      });
      expect(res.statusCode, res.body).toBe(200);
      const active = (await asset('get', { id: a.id })).json().asset;
      const head = (await asset('get', { id: a.id, updatedOn: 'HEAD' })).json().asset;
      expect(head.attributes['dm:serial']).toBe('new');
      expect(active.attributes['dm:serial'] === 'new').toBe(newIsActive);
      expect(head.version.active).toBe(newIsActive);
    },
  );

  it('activating a version (mode 3): activates HEAD or any updatedOn; a version that does not exist is 404; without the feature 400', async () => {
    const asset = caller(() => withInactive, 'Asset');
    const a = (
      await asset('create', {
        asset: { template: { customId: 'pump' }, customId: 'm3', attributes: { 'dm:serial': 'one' } },
        return: true,
      })
    ).json().asset;
    await asset('update', { asset: { id: a.id, attributes: { 'dm:serial': 'two' } }, activationPolicy: 'false' });
    expect((await asset('get', { id: a.id })).json().asset.attributes['dm:serial']).toBe('one');
    expect((await asset('update', { customId: 'm3', templateCustomId: 'pump', updatedOn: 'HEAD' })).statusCode).toBe(
      200,
    );
    expect((await asset('get', { id: a.id })).json().asset.attributes['dm:serial']).toBe('two');
    const back = await asset('update', { id: a.id, updatedOn: a.version.updatedOn, return: true });
    expect(back.json().asset.attributes['dm:serial']).toBe('one');
    expect(back.json().asset.version).toMatchObject({ updatedOn: a.version.updatedOn, active: true });
    // Queries see the ACTIVE version.
    const q = (
      await asset('query', { filters: [{ property: 'attributes.dm:serial', operator: 'eq', value: 'one' }] })
    ).json();
    expect(q.assets.map((x: any) => x.id)).toEqual([a.id]);
    expect((await asset('update', { id: a.id, updatedOn: '2001-01-01T00:00:00.000Z' })).statusCode).toBe(404);
    const offAsset = caller(() => without, 'Asset');
    const b = (
      await offAsset('create', {
        asset: { template: { customId: 'pump' }, attributes: { 'dm:serial': 'x' } },
        return: true,
      })
    ).json().asset;
    expect((await offAsset('update', { id: b.id, updatedOn: 'HEAD' })).statusCode).toBe(400);
  });
});

describeEachEngine('data management API: asset query, sort modes, actions and saved queries', (engine) => {
  let t: TestApp;
  let hooks: Server;
  const received: any[] = [];
  const asset = caller(() => t, 'Asset');
  const tpl = caller(() => t, 'Template');
  const names = ['Zeta 10', 'zeta 9', 'Äpfel', 'apple', 'Banana', 'éclair', 'Eclair'];
  const ids = async (parameters: Record<string, unknown>) => {
    const res = await asset('query', parameters);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().assets.map((a: any) => a.displayName);
  };

  beforeAll(async () => {
    hooks = createServer(async (req, res) => {
      let body = '';
      for await (const c of req) body += c;
      received.push(JSON.parse(body));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ message: 'seen', refresh: true }));
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    t = await setUp(false, engine, {
      actionWebhooks: [{ name: 'hook', url: `http://127.0.0.1:${(hooks.address() as { port: number }).port}/` }],
    });
    for (const [i, name] of names.entries()) {
      const res = await asset('create', {
        asset: {
          template: { customId: 'pump' },
          customId: `q-${i}`,
          displayName: name,
          attributes: { 'dm:serial': name, 'dm:power': i * 10, 'dm:secret': 's', 'dm:note': `note ${i}` },
          unversionedAttributes: { 'dm:location': i % 2 ? 'north' : 'south' },
        },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await tpl('create', { template: { customId: 'vault', restricted: true, roles: ['engineer'], attributes: [] } });
    expect(
      (
        await asset('create', {
          asset: { template: { customId: 'vault' }, customId: 'secret-asset', displayName: 'Vaulted' },
        })
      ).statusCode,
    ).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await new Promise((r) => hooks.close(r));
  });

  it('sortMode: code points, ci, user (accents folded, numbers as numbers) and user_ci', async () => {
    const sorted = (sortMode: string, property = 'displayName') =>
      ids({
        filters: [{ property: 'template.customId', operator: 'eq', value: 'pump' }],
        sorters: [{ property }],
        sortMode,
      });
    expect(await sorted('')).toEqual(['Banana', 'Eclair', 'Zeta 10', 'apple', 'zeta 9', 'Äpfel', 'éclair']);
    expect(await sorted('ci')).toEqual(['apple', 'Banana', 'Eclair', 'Zeta 10', 'zeta 9', 'Äpfel', 'éclair']);
    expect(await sorted('user')).toEqual(
      ['Apfel', 'Banana', 'Eclair', 'Zeta 10', 'apple', 'eclair', 'zeta 9'].map((n) =>
        names.find((x) => x.normalize('NFKD').replace(/\p{M}/gu, '') === n),
      ),
    );
    expect(await sorted('user_ci')).toEqual(['Äpfel', 'apple', 'Banana', 'éclair', 'Eclair', 'zeta 9', 'Zeta 10']);
    // The same on a string attribute.
    expect(await sorted('user_ci', 'attributes.dm:serial')).toEqual([
      'Äpfel',
      'apple',
      'Banana',
      'éclair',
      'Eclair',
      'zeta 9',
      'Zeta 10',
    ]);
  });

  it('filters on attributes (versioned and unversioned), ranges, like, DESC sorts, paging and totals', async () => {
    expect(
      await ids({
        filters: [{ property: 'attributes.dm:power', operator: 'gte', value: 40 }],
        sorters: [{ property: 'attributes.dm:power', direction: 'DESC' }],
      }),
    ).toEqual(['Eclair', 'éclair', 'Banana']);
    expect(
      await ids({
        filters: [
          { property: 'attributes.dm:location', operator: 'eq', value: 'north' },
          { property: 'displayName', operator: 'like', value: '*a*' },
        ],
        sorters: [{ property: 'id' }],
      }),
    ).toEqual(['zeta 9', 'apple', 'éclair']);
    const page = (
      await asset('query', {
        filters: [{ property: 'template.customId', operator: 'eq', value: 'pump' }],
        sorters: [{ property: 'attributes.dm:power' }],
        start: 2,
        limit: 2,
      })
    ).json();
    expect(page.total).toBe(7);
    expect(page.assets.map((a: any) => a.displayName)).toEqual(['Äpfel', 'apple']);
    expect((await asset('query', { filters: [{ property: 'colour', operator: 'eq', value: 1 }] })).statusCode).toBe(
      400,
    );
    expect(
      (await asset('query', { filters: [{ property: 'displayName', operator: 'near', value: 1 }] })).statusCode,
    ).toBe(400);
  });

  it('verbosity 0 leaves out attributes; withoutHiddenAttributes and withoutAttributeGroups trim them', async () => {
    const filters = [{ property: 'customId', operator: 'eq', value: 'q-0' }];
    const v0 = (await asset('query', { filters })).json().assets[0];
    expect(v0).not.toHaveProperty('attributes');
    expect(v0).toMatchObject({ customId: 'q-0', displayName: 'Zeta 10' });
    const v1 = (
      await asset('query', { filters, verbosity: 1, withoutHiddenAttributes: true, withoutAttributeGroups: ['Site'] })
    ).json().assets[0];
    expect(Object.keys(v1.attributes).sort()).toEqual(['dm:note', 'dm:power', 'dm:serial', 'dm:state']);
    expect(v1.unversionedAttributes).toEqual({});
    expect((await asset('query', { filters, withoutAttributeGroups: ['(a)\\1'] })).statusCode).toBe(400);
    expect((await asset('query', { filters, withoutAttributeGroups: ['('] })).statusCode).toBe(400);
  });

  it('assets of restricted templates: only with restricted and a matching role', async () => {
    const vaulted = [{ property: 'customId', operator: 'eq', value: 'secret-asset' }];
    expect((await asset('query', { filters: vaulted })).json().total).toBe(0);
    expect((await asset('query', { filters: vaulted, restricted: true })).json().total).toBe(1);
    expect((await asset('query', { filters: vaulted, restricted: true }, ['dm2', 'dm-pass-2'])).json().total).toBe(0);
    expect(
      (await asset('get', { customId: 'secret-asset', templateCustomId: 'vault' }, ['dm2', 'dm-pass-2'])).statusCode,
    ).toBe(403);
    expect(
      (await asset('create', { asset: { template: { customId: 'vault' } } }, ['dm2', 'dm-pass-2'])).statusCode,
    ).toBe(403);
    // A template action (it may read the template's assets) of a restricted template: only with one of its roles.
    await tpl('update', {
      template: {
        customId: 'vault',
        restricted: true,
        roles: ['engineer'],
        attributes: [],
        actions: [{ key: 'dump', scope: 'template', handler: { type: 'export', format: 'json' } }],
      },
    });
    const denied = await tpl('executeAction', { template: { customId: 'vault' }, action: { key: 'dump' } }, [
      'dm2',
      'dm-pass-2',
    ]);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.messageKey).toBe('DM_ERROR_FORBIDDEN');
    expect(
      (
        await tpl('getActionAttributes', { template: { customId: 'vault' }, action: { key: 'dump' } }, [
          'dm2',
          'dm-pass-2',
        ])
      ).statusCode,
    ).toBe(403);
    const allowed = (await tpl('executeAction', { template: { customId: 'vault' }, action: { key: 'dump' } })).json();
    expect(JSON.parse(Buffer.from(allowed.download.data, 'base64').toString()).map((r: any) => r.customId)).toEqual([
      'secret-asset',
    ]);
  });

  it('assets of restricted templates: hidden in every plan of a query, and a change of its roles counts at once', async () => {
    const DM2: [string, string] = ['dm2', 'dm-pass-2'];
    const vaulted = [{ property: 'displayName', operator: 'eq', value: 'Vaulted' }];
    // No filter nor sort (the count and page by id), a sort alone in pages of 2 (a walk of the sort's index while the
    // page is near the start), a filter and a sort, a filter alone.
    const shapes: Array<Record<string, unknown>> = [
      {},
      { sorters: [{ property: 'displayName' }] },
      { filters: vaulted, sorters: [{ property: 'displayName' }] },
      { filters: vaulted },
    ];
    /** Whether the vaulted asset is among the answers, page by page, and the total counts it likewise. */
    const sees = async (shape: Record<string, unknown>, restricted: boolean, user?: [string, string]) => {
      const found: string[] = [];
      let total = 0;
      for (let start = 0; start === 0 || start < total; start += 2) {
        const res = await asset('query', { ...shape, restricted, start, limit: 2 }, user);
        expect(res.statusCode, res.body).toBe(200);
        total = res.json().total;
        found.push(...res.json().assets.map((a: any) => a.customId));
      }
      const seen = found.includes('secret-asset');
      expect(total).toBe(found.length);
      return seen;
    };
    const matrix = async () => {
      const rows: boolean[][] = [];
      for (const shape of shapes)
        rows.push([await sees(shape, false), await sees(shape, true), await sees(shape, true, DM2)]);
      return rows;
    };
    // Columns: dm (role engineer) without `restricted`, dm with it, dm2 (no role) with it.
    expect(await matrix()).toEqual(shapes.map(() => [false, true, false]));
    const roles = async (r: string[]) =>
      expect(
        (await tpl('update', { template: { customId: 'vault', restricted: true, roles: r, attributes: [] } }))
          .statusCode,
      ).toBe(200);
    await roles(['operator']);
    expect(await matrix()).toEqual(shapes.map(() => [false, false, false]));
    await roles(['operator', 'engineer']);
    expect(await matrix()).toEqual(shapes.map(() => [false, true, false]));
    await roles(['engineer']);
  });

  it('getUser, getActions, and saved queries (saveQuery, deleteQuery, getQueries) per engine user', async () => {
    expect(
      (
        await asset('saveQuery', {
          name: 'big pumps',
          query: { filters: [{ property: 'attributes.dm:power', operator: 'gt', value: 30 }] },
        })
      ).json(),
    ).toEqual({});
    await asset('saveQuery', { name: 'mine', query: {} }, ['dm2', 'dm-pass-2']);
    const res = (
      await asset('query', {
        limit: 1,
        getQueries: true,
        getUser: true,
        getActions: true,
        filters: [{ property: 'customId', operator: 'eq', value: 'q-1' }],
      })
    ).json();
    expect(res.user).toEqual({ name: 'dm', groups: ['DataManagement'], roles: ['engineer'] });
    expect(res.queries).toMatchObject([
      { name: 'big pumps', query: { filters: [{ property: 'attributes.dm:power' }] } },
    ]);
    expect(res.actions.map((a: any) => a.key)).toEqual(['csv', 'json', 'hook']);
    expect((await asset('deleteQuery', { name: 'big pumps' })).json()).toEqual({});
    expect((await asset('deleteQuery', { name: 'big pumps' })).statusCode).toBe(404);
    expect((await asset('query', { limit: 0, getQueries: true })).json().queries).toEqual([]);
  });

  it('export actions: the selected assets as CSV (formula cells defused) or JSON, with the columns of the call', async () => {
    await asset('create', {
      asset: {
        template: { customId: 'pump' },
        customId: 'q-evil',
        displayName: '=cmd()',
        attributes: { 'dm:serial': 'a,"b"' },
      },
    });
    const filters = [{ property: 'customId', operator: 'in', value: ['q-0', 'q-evil'] }];
    const csv = await asset('executeAction', {
      template: { customId: 'pump' },
      action: { key: 'csv' },
      filters,
      sorters: [{ property: 'customId' }],
      columns: ['customId', { dataIndex: 'attributes.dm:serial', text: 'Serial' }, 'attributes.dm:location'],
    });
    expect(csv.statusCode, csv.body).toBe(200);
    const body = csv.json();
    expect(body.total).toBe(2);
    expect(body.download).toMatchObject({ fileName: 'pumps.csv', mediaType: 'text/csv; charset=utf-8' });
    expect(Buffer.from(body.download.data, 'base64').toString()).toBe(
      'customId,Serial,attributes.dm:location\r\nq-0,Zeta 10,south\r\nq-evil,"a,""b""",\r\n',
    );
    const json = (
      await asset('executeAction', {
        template: { customId: 'pump' },
        action: { key: 'json' },
        filters: [{ property: 'customId', operator: 'eq', value: 'q-evil' }],
      })
    ).json();
    const rows = JSON.parse(Buffer.from(json.download.data, 'base64').toString());
    expect(json.download.fileName).toBe('export.json');
    expect(rows).toEqual([
      {
        id: rows[0].id,
        customId: 'q-evil',
        displayName: '=cmd()',
        description: '',
        'attributes.dm:serial': 'a,"b"',
        'attributes.dm:power': null,
        'attributes.dm:state': 'new',
        'attributes.dm:location': null,
        'attributes.dm:note': null,
      },
    ]);
    const evil = (
      await asset('executeAction', {
        template: { customId: 'pump' },
        action: { key: 'csv' },
        filters: [{ property: 'customId', operator: 'eq', value: 'q-evil' }],
        columns: ['displayName'],
      })
    ).json();
    expect(Buffer.from(evil.download.data, 'base64').toString()).toBe("displayName\r\n'=cmd()\r\n");
    // A template-scoped export takes every asset of the template.
    const all = (
      await tpl('executeAction', { template: { customId: 'pump' }, action: { key: 'all' }, columns: ['customId'] })
    ).json();
    const lines = Buffer.from(all.download.data, 'base64').toString().trim().split('\r\n');
    expect(lines[0]).toBe('customId');
    expect(lines.slice(1).sort()).toEqual(['q-0', 'q-1', 'q-2', 'q-3', 'q-4', 'q-5', 'q-6', 'q-evil']);
  });

  it('a webhook action gets the selected assets and its parameters are checked first', async () => {
    const before = received.length;
    expect((await asset('executeAction', { template: { customId: 'pump' }, action: { key: 'hook' } })).statusCode).toBe(
      400,
    );
    expect(received.length).toBe(before);
    const attrs = (
      await asset('getActionAttributes', { template: { customId: 'pump' }, action: { key: 'hook' } })
    ).json();
    expect(attrs.attributes.map((a: any) => a.key)).toEqual(['why']);
    const res = await asset('executeAction', {
      template: { customId: 'pump' },
      action: { key: 'hook' },
      Parameters: [{ key: 'why', value: 'check' }],
      filters: [{ property: 'customId', operator: 'eq', value: 'q-2' }],
    });
    expect(res.json()).toEqual({ total: 1, message: 'seen', refresh: true });
    expect(received.at(-1)).toMatchObject({
      context: 'Asset',
      action: 'hook',
      parameters: { why: 'check' },
      total: 1,
      assets: [{ customId: 'q-2', joinedChildAssetIds: [] }],
    });
    expect((await asset('executeAction', { template: { customId: 'pump' }, action: { key: 'all' } })).statusCode).toBe(
      400,
    );
  });
});

describeEachEngine(
  "data management API: a page read by walking the sort index gives the general plan's answer",
  (engine) => {
    let t: TestApp;
    const asset = caller(() => t, 'Asset');
    const tpl = caller(() => t, 'Template');
    // A seeded generator: the same data on every run.
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];

    beforeAll(async () => {
      t = await startTestApp(engine, { engine: { users: USERS } });
      await tpl('create', {
        template: {
          customId: 'w',
          attributes: [
            { key: 'n', type: 'integer' },
            { key: 's', type: 'string' },
            { key: 'f', type: 'number' },
            { key: 'j', type: 'json' },
            { key: 'b', type: 'boolean' },
          ],
        },
      });
      // Mixed case, accents and digit runs: the sort modes order these differently, with ties in ci, user and user_ci.
      const words = [
        'alpha',
        'Beta',
        'beta',
        'gamma',
        'delta',
        'Ärger',
        'ärger',
        'Arger',
        'éclair',
        'Eclair',
        'zulu',
        'a',
        '',
        'Zeta 9',
        'zeta 10',
      ];
      for (let batch = 0; batch < 4; batch++) {
        const requests = Array.from({ length: 100 }, (_, k) => {
          const attributes: Record<string, unknown> = { n: Math.floor(rand() * 50) };
          if (rand() < 0.8) attributes.s = pick(words) + (rand() < 0.5 ? String(Math.floor(rand() * 20)) : '');
          if (rand() < 0.5) attributes.f = Math.round(rand() * 1000) / 10;
          // Mixed kinds: a walk must not be taken on j (arrays, objects, strings, numbers).
          if (rand() < 0.7) attributes.j = pick([1, 'x', [3, 1], { k: 1 }, 2.5, 'y', [], true]);
          if (rand() < 0.6) attributes.b = rand() < 0.5;
          return {
            context: 'Asset',
            method: 'create',
            parameters: {
              asset: {
                template: { customId: 'w' },
                customId: `w-${batch * 100 + k}`,
                displayName: pick(words),
                attributes,
              },
            },
          };
        });
        const res = await t.request({
          method: 'POST',
          url: URL_,
          headers: { ...basic('dm', 'dm-pass-1'), 'content-type': 'application/json' },
          payload: JSON.stringify({ requests }),
        });
        expect(res.statusCode).toBe(200);
      }
    });
    afterAll(() => t.close());

    const FILTERS = [
      [{ property: 'template.customId', operator: 'eq', value: 'w' }],
      [{ property: 'attributes.n', operator: 'gte', value: 10 }],
      [
        { property: 'attributes.n', operator: 'lt', value: 5, invert: true },
        { property: 'displayName', operator: 'ne', value: 'zulu' },
      ],
      [{ property: 'attributes.s', operator: 'like', value: '*a*' }],
      // Values beyond the index's exact rows (arrays, objects: read from the document) and the asset's own columns.
      [{ property: 'attributes.j', operator: 'gte', value: 1 }],
      [
        { property: 'createdOn', operator: 'gte', value: '2000-01-01T00:00:00.000Z' },
        { property: 'attributes.j', operator: 'eq', value: 'x', invert: true },
        { property: 'id', operator: 'gt', value: 3 },
      ],
    ];
    const SORTS = [
      'attributes.n',
      'attributes.s',
      'attributes.f',
      'attributes.j',
      'attributes.b',
      'displayName',
      'customId',
    ];

    const STRING_SORTS = new Set(['attributes.s', 'displayName', 'customId']);
    const MODES = ['', 'ci', 'user', 'user_ci'];

    const PAGES = [
      [0, 10],
      [30, 7],
      [150, 20],
      [390, 20],
    ] as const;

    // One test per filter, so that each stays far inside its limit on a busy machine. Each test compares every sort,
    // sort mode and direction; by default on one page each, the pages taken in turn (each page 8 times per filter: the
    // first page, pages inside and the last, short one); THOROUGH=1 compares every page of each (4 times the requests).
    for (const [f, filters] of FILTERS.entries()) {
      it(`for every sort, sort mode and direction, filter ${f + 1} of ${FILTERS.length}, pages in turn: the same ids as with a second sorter (which takes the general plan)`, async () => {
        let compared = 0;
        let combination = 0;
        for (const property of SORTS) {
          for (const sortMode of STRING_SORTS.has(property) ? MODES : ['']) {
            for (const direction of ['ASC', 'DESC'] as const) {
              const pages = thorough() ? PAGES : [PAGES[(combination + f) % PAGES.length]];
              combination++;
              for (const [start, limit] of pages) {
                const one = await asset('query', {
                  filters,
                  sorters: [{ property, direction }],
                  sortMode,
                  start,
                  limit,
                });
                const two = await asset('query', {
                  filters,
                  sorters: [
                    { property, direction },
                    { property: 'id', direction: 'ASC' },
                  ],
                  sortMode,
                  start,
                  limit,
                });
                expect(one.statusCode, one.body).toBe(200);
                const ids = (r: typeof one) => r.json().assets.map((a: { id: number }) => a.id);
                expect(ids(one), `${JSON.stringify(filters)} ${property} ${sortMode} ${direction} ${start}`).toEqual(
                  ids(two),
                );
                expect(one.json().total).toBe(two.json().total);
                compared++;
              }
            }
          }
        }
        expect(combination).toBe((SORTS.length + 3 * STRING_SORTS.size) * 2);
        expect(compared).toBe(combination * (thorough() ? PAGES.length : 1));
      });
    }
  },
);

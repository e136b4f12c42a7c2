// The data management API's `return` of Asset create and update (interface-spec, Context Asset: `returnParameters` are
// the parameters of the get behind `return`) and the QName rule of `strict` (decisions section 9: XML 1.0 fifth
// edition names, with one optional prefix), on both engines.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine, startTestApp, type TestApp } from '../helpers/test-app.js';

const URL_ = '/engine/servlet/UploadServlet/api_protocol';
const DM = { authorization: `Basic ${Buffer.from('dm:dm-pass-1').toString('base64')}` };

describeEachEngine('data management API: return with returnParameters, QNames', (engine) => {
  let t: TestApp;
  const call = async (context: string, method: string, parameters: unknown) => {
    const res = await t.request({
      method: 'POST',
      url: URL_,
      headers: { ...DM, 'content-type': 'application/json' },
      payload: JSON.stringify({ context, method, parameters }),
    });
    return { status: res.statusCode, json: res.json() as any };
  };
  const asset = (method: string, parameters: unknown) => call('Asset', method, parameters);

  beforeAll(async () => {
    t = await startTestApp(engine, {
      engine: { users: [{ name: 'dm', password: 'dm-pass-1', groups: ['DataManagement'] }], inactiveVersions: true },
    });
    const template = {
      customId: 'rp',
      attributes: [
        { key: 'n', type: 'integer' },
        { key: 'secret', type: 'string', hidden: true },
      ],
    };
    expect((await call('Template', 'create', { template })).status).toBe(200);
  });
  afterAll(() => t.close());

  it('update with return: returnParameters updatedOn HEAD answers the new, inactive HEAD version; ACTIVE (default) the active one', async () => {
    const created = (
      await asset('create', {
        asset: { template: { customId: 'rp' }, attributes: { n: 1, secret: 's' } },
        return: true,
      })
    ).json.asset;
    const head = await asset('update', {
      asset: { id: created.id, attributes: { n: 2 } },
      activationPolicy: 'false',
      return: true,
      returnParameters: { updatedOn: 'HEAD' },
    });
    expect(head.status, JSON.stringify(head.json)).toBe(200);
    expect(head.json.asset.attributes.n).toBe(2);
    expect(head.json.asset.version.active).toBe(false);
    expect(head.json.asset.version.updatedOn > created.version.updatedOn).toBe(true);

    const active = await asset('update', {
      asset: { id: created.id, attributes: { n: 3 } },
      activationPolicy: 'false',
      return: true,
    });
    expect(active.json.asset.attributes.n).toBe(1);
    expect(active.json.asset.version).toMatchObject({ active: true, updatedOn: created.version.updatedOn });
    expect(
      (
        await asset('update', {
          asset: { id: created.id, attributes: { n: 4 } },
          activationPolicy: 'false',
          return: true,
          returnParameters: { updatedOn: 'ACTIVE' },
        })
      ).json.asset.attributes.n,
    ).toBe(1);
  });

  it('update with return: other adds allVersions; withoutHiddenAttributes still applies; both on the HEAD version', async () => {
    const created = (
      await asset('create', {
        asset: { template: { customId: 'rp' }, attributes: { n: 1, secret: 's' } },
        return: true,
      })
    ).json.asset;
    const res = await asset('update', {
      asset: { id: created.id, attributes: { n: 2 } },
      activationPolicy: 'false',
      return: true,
      returnParameters: { updatedOn: 'HEAD', other: 'ACTIVE', withoutHiddenAttributes: true },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const a = res.json.asset;
    expect(a.attributes).toEqual({ n: 2 });
    expect(a.allVersions).toHaveLength(2);
    const activeVersion = a.allVersions.find((v: any) => v.active);
    expect(activeVersion).toMatchObject({ updatedOn: created.version.updatedOn, attributes: { n: 1 } });
    expect(activeVersion.attributes).not.toHaveProperty('secret');
  });

  it('activation (mode 3) and create with return honour returnParameters too', async () => {
    const created = await asset('create', {
      asset: { template: { customId: 'rp' }, attributes: { n: 1 } },
      return: true,
      returnParameters: { other: 'HEAD' },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(created.json.asset.allVersions).toHaveLength(1);
    const id = created.json.asset.id;
    await asset('update', { asset: { id, attributes: { n: 2 } }, activationPolicy: 'false' });
    const activated = await asset('update', {
      id,
      updatedOn: 'HEAD',
      return: true,
      returnParameters: { other: 'PREVIOUS' },
    });
    expect(activated.status, JSON.stringify(activated.json)).toBe(200);
    expect(activated.json.asset.attributes.n).toBe(2);
    expect(activated.json.asset.allVersions.filter((v: any) => v.attributes).map((v: any) => v.attributes.n)).toEqual([
      1,
    ]);
  });

  it.each([
    ['updatedOn not a designator', { updatedOn: 'yesterday' }],
    ['updatedOn PREVIOUS', { updatedOn: 'PREVIOUS' }],
    ['updatedOn of the wrong type', { updatedOn: 5 }],
    ['other of the wrong type', { other: true }],
    ['not an object', 'HEAD'],
  ])('returnParameters with %s: 400, and nothing written', async (_what, returnParameters) => {
    const created = (
      await asset('create', { asset: { template: { customId: 'rp' }, attributes: { n: 1 } }, return: true })
    ).json.asset;
    const res = await asset('update', {
      asset: { id: created.id, attributes: { n: 9 } },
      return: true,
      returnParameters,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(400);
    expect(res.json.error.message).toContain('returnParameters');
    expect((await asset('get', { id: created.id, updatedOn: 'HEAD' })).json.asset.attributes.n).toBe(1);
  });

  it.each([
    ['grüße'],
    ['Ω:λ'],
    ['a·b'],
    ['dm:serial'],
    ['_x'],
    ['a-b.c'],
    ['x1'],
    ['é'],
    ['中文:名前'],
    ['𐀀'],
    ['a\u0300'],
    ['a‿b'],
    ['A:_'],
    ['ab:c-d.e'],
  ])('strict: %s is a QName', async (key) => {
    const res = await call('Template', 'create', {
      template: {
        customId: `ok-${[...key].map((c) => c.codePointAt(0)).join('-')}`,
        attributes: [{ key, type: 'string' }],
      },
      strict: true,
      return: true,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.template.attributes[0].key).toBe(key);
  });

  it.each([
    ['1a'],
    ['a:b:c'],
    [':a'],
    ['a:'],
    ['-a'],
    ['a b'],
    [''],
    ['·a'],
    ['.a'],
    ['a:1b'],
    ['a×b'],
    ['a;b'],
    ['a\u037Eb'],
    ['\u0300a'],
    ['a\u2000b'],
    ['a\uFFFE'],
  ])('strict: %j is not a QName (400)', async (key) => {
    const res = await call('Template', 'create', {
      template: { customId: 'refused', attributes: [{ key, type: 'string' }] },
      strict: true,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(400);
  });
});

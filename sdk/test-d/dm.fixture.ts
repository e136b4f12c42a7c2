// Type test of the typed data management calls, for documents that name the calls' schemas
// (`DataManagement.<Context>.<method>.Parameters` / `.Answer`): test/sdk/types.test.ts compiles it only when
// sdk/src/schema.ts has them (before, parameters and answers are plain JSON objects and only method names are checked).
import { createClient, type DmAnswer, type DmParameters } from '../src/index.js';

const client = createClient({ baseUrl: '', auth: { basic: { username: 'dm', password: 'p' } } });

export async function calls(): Promise<void> {
  const query = await client.dm.call('Asset', 'query', { limit: 0 });
  const total: number | undefined = query.total;
  await client.dm.call('Asset', 'get', { templateCustomId: 'pump', customId: 'P-1' });
  // @ts-expect-error not a parameter of Asset.query
  await client.dm.call('Asset', 'query', { notAParameter: 1 });
  // @ts-expect-error limit is a number
  await client.dm.call('Asset', 'query', { limit: 'ten' });
  const [template] = await client.dm.batch([
    { context: 'Template', method: 'get', parameters: { customId: 'pump' } },
  ] as const);
  // @ts-expect-error the answer of Template.get has no such member
  template.notAMember;
  await client.dm.batch([
    // @ts-expect-error a batch call's parameters are those of its method
    { context: 'Template', method: 'get', parameters: { notAParameter: true } },
  ]);
  void total;
}

export type CreateParameters = DmParameters<'Asset', 'create'>;
export type GetAnswer = DmAnswer<'Template', 'get'>;

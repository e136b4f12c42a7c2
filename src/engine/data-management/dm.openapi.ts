// The data management protocol in the OpenAPI document: one named schema per call (`DataManagement.<Context>.<method>.Call`,
// `.Parameters`, `.Answer`), the request as their union plus the batch, the answer likewise. The parameter schemas are
// the ones the methods check with (their opaque parts refined with the schemas checkTemplate, checkAsset and
// returnOptions apply); the answers are written here from what the methods answer (templateDoc, assetDoc, the query's
// verbosities) and the tests replay every call's example against the service and validate its answer.
import { Type, type TSchema } from '@sinclair/typebox';
import { componentRef } from '../../platform/http/openapi.js';
import { AttributeSchema, TemplateInputSchema } from './templates/template.schema.js';
import {
  ActionSchema as TemplateCallActionSchema,
  GetSchema as TemplateGetSchema,
  ImageSchema,
  QuerySchema as TemplateQuerySchema,
  RefOnlySchema,
  WriteSchema,
} from './templates/template-methods.js';
import {
  ActionSchema as AssetActionSchema,
  CreateSchema,
  DeleteQuerySchema,
  DeleteSchema,
  GetSchema as AssetGetSchema,
  QuerySchema as AssetQuerySchema,
  ReturnSchema,
  SaveQuerySchema,
  UpdateSchema,
} from './assets/asset-params.js';
import { AssetInputSchema } from './assets/asset.schema.js';
import { P, ref, refined, Named, ActionResult, Empty, SHARED, type MethodDocument } from './dm.openapi-answers.js';
import { PUMP_ATTRIBUTES, PUMP_ACTIONS, PUMP, P1, IMAGE, CSV } from './dm.openapi-examples.js';

const TemplateWrite = refined(
  WriteSchema,
  { template: TemplateInputSchema },
  '`template`: the template as written; `return`: answer it; `strict`: refuse unknown attribute types and values',
);
const AssetWriteParts = { asset: Type.Optional(AssetInputSchema), returnParameters: Type.Optional(ReturnSchema) };
const TemplateAction = refined(TemplateCallActionSchema, {}, 'The template and its template-scoped action');

/**
 * Every method of every context, in the order the tests replay their examples (an example may need what an earlier
 * one wrote). The dispatcher's method tables must name exactly these (checked where the module is built).
 */
export const DATA_MANAGEMENT_METHODS: Record<'Template' | 'Asset', Record<string, MethodDocument>> = {
  Template: {
    create: {
      summary: 'Creates a template',
      parameters: TemplateWrite,
      answer: Type.Object({ template: Type.Optional(ref('Template')) }, { additionalProperties: false }),
      example: {
        parameters: {
          template: { customId: 'pump', name: 'Pump', attributes: PUMP_ATTRIBUTES, actions: PUMP_ACTIONS },
          return: true,
        },
        answer: { template: PUMP },
      },
    },
    update: {
      summary: 'Replaces a template (named by the id or customId inside it)',
      parameters: TemplateWrite,
      answer: Type.Object({ template: Type.Optional(ref('Template')) }, { additionalProperties: false }),
      example: {
        parameters: {
          template: {
            customId: 'pump',
            name: 'Pump',
            description: 'Centrifugal pumps',
            attributes: PUMP_ATTRIBUTES,
            actions: PUMP_ACTIONS,
          },
        },
        answer: {},
      },
    },
    setImage: {
      summary: "Sets the template's image (a PNG of 64 x 64 pixels, base64)",
      parameters: ImageSchema,
      answer: Empty,
      example: { parameters: { customId: 'pump', image: IMAGE }, answer: {} },
    },
    getImage: {
      summary: "The template's image",
      parameters: RefOnlySchema,
      answer: Type.Object({ image: Type.String({ description: 'PNG, base64' }) }, { additionalProperties: false }),
      example: { parameters: { customId: 'pump' }, answer: { image: IMAGE } },
    },
    get: {
      summary: 'A template by id or customId (`optional`: {} when there is none)',
      parameters: TemplateGetSchema,
      answer: Type.Object({ template: Type.Optional(ref('Template')) }, { additionalProperties: false }),
      example: {
        parameters: { customId: 'pump' },
        answer: { template: { ...PUMP, description: 'Centrifugal pumps' } },
      },
    },
    query: {
      summary: 'Templates by filters and sorters, a page of them and the total',
      parameters: TemplateQuerySchema,
      answer: Type.Object(
        { total: Type.Integer(), templates: Type.Array(ref('Template')) },
        { additionalProperties: false },
      ),
      example: {
        parameters: { sorters: [{ property: 'customId', direction: 'ASC' }], start: 0, limit: 50 },
        answer: { total: 1, templates: [{ ...PUMP, description: 'Centrifugal pumps' }] },
      },
    },
    getActionAttributes: {
      summary: "The parameters of a template's action",
      parameters: TemplateAction,
      answer: Type.Object({ attributes: Type.Array(AttributeSchema) }, { additionalProperties: false }),
      example: {
        parameters: { template: { customId: 'pump' }, action: { key: 'export' } },
        answer: { attributes: [] },
      },
    },
    executeAction: {
      summary: "Runs a template's action (webhook or export); runs alone, not in a batch",
      parameters: TemplateAction,
      answer: Type.Object(ActionResult, { additionalProperties: false }),
      example: {
        parameters: { template: { customId: 'pump' }, action: { key: 'export' } },
        answer: {
          message: '1 asset exported',
          download: { fileName: 'pumps.csv', mediaType: 'text/csv; charset=utf-8', data: CSV },
        },
      },
    },
    delete: {
      summary: 'Deletes a template that has no assets',
      parameters: RefOnlySchema,
      answer: Empty,
      example: { parameters: { customId: 'pump' }, answer: {} },
    },
  },
  Asset: {
    create: {
      summary: 'Creates an asset of a template (its first version)',
      parameters: refined(CreateSchema, AssetWriteParts, 'The template by templateId or templateCustomId'),
      answer: Type.Object(
        {
          asset: Type.Union([ref('Asset'), Type.Object({ id: Type.Integer() }, { additionalProperties: false })], {
            description: 'The asset with `return`, else only its id',
          }),
        },
        { additionalProperties: false },
      ),
      example: {
        parameters: {
          templateCustomId: 'pump',
          asset: { customId: 'P-1', displayName: 'Pump 1', attributes: { serial: 'A100', power: 7.5 } },
          versionComment: 'installed',
          return: true,
        },
        answer: { asset: P1 },
      },
    },
    update: {
      summary:
        'Updates an asset: merges into its latest version and makes a new one (activationPolicy decides which is active)',
      parameters: refined(
        UpdateSchema,
        AssetWriteParts,
        'The asset by id, or customId with templateId or templateCustomId',
      ),
      answer: Type.Object(
        {
          asset: Type.Optional(ref('Asset')),
          unchanged: Type.Optional(Type.Literal(true, { description: 'onlyIfChanged: nothing was written' })),
        },
        { additionalProperties: false },
      ),
      example: {
        parameters: {
          templateCustomId: 'pump',
          asset: { customId: 'P-1', attributes: { power: 11 } },
          versionComment: 'new motor',
        },
        answer: {},
      },
    },
    get: {
      summary: 'An asset at a version (updatedOn), with the version history (other)',
      parameters: AssetGetSchema,
      answer: Type.Object({ asset: Type.Optional(ref('Asset')) }, { additionalProperties: false }),
      example: {
        parameters: { templateCustomId: 'pump', customId: 'P-1' },
        answer: { asset: { ...P1, attributes: { serial: 'A100', power: 11 } } },
      },
    },
    query: {
      summary: 'Assets by filters and sorters at a verbosity, a page of them and the total',
      parameters: AssetQuerySchema,
      answer: Type.Object(
        {
          total: Type.Integer(),
          assets: Type.Array(Type.Union([ref('Asset'), ref('AssetTreeNode')])),
          queries: Type.Optional(
            Type.Array(
              Type.Object(
                { name: Type.String(), query: Type.Unknown(), updatedOn: Type.String() },
                { additionalProperties: false },
              ),
              { description: 'getQueries: the saved queries of the caller' },
            ),
          ),
          user: Type.Optional(
            Type.Object(
              { name: Type.String(), groups: Type.Array(Type.String()), roles: Type.Array(Type.String()) },
              { additionalProperties: false, description: 'getUser: the caller' },
            ),
          ),
          actions: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  template: Named,
                  key: Type.String(),
                  label: Type.String(),
                  parameters: Type.Array(AttributeSchema),
                },
                { additionalProperties: false },
              ),
              { description: "getActions: the asset-scoped actions of the answered assets' templates" },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      example: {
        parameters: {
          filters: [{ property: 'attributes.power', operator: 'gt', value: 10 }],
          sorters: [{ property: 'displayName', direction: 'ASC' }],
          verbosity: 1,
          getUser: true,
        },
        answer: {
          total: 1,
          assets: [{ ...P1, attributes: { serial: 'A100', power: 11 }, joinedChildAssetIds: [] }],
          user: { name: 'dm', groups: ['DataManagement'], roles: [] },
        },
      },
    },
    getActionAttributes: {
      summary: "The parameters of an asset-scoped action of the asset's template",
      parameters: AssetActionSchema,
      answer: Type.Object({ attributes: Type.Array(AttributeSchema) }, { additionalProperties: false }),
      example: {
        parameters: { template: { customId: 'pump' }, action: { key: 'exportSelected' } },
        answer: { attributes: [] },
      },
    },
    executeAction: {
      summary: 'Runs an asset-scoped action on the assets the filters select; runs alone, not in a batch',
      parameters: AssetActionSchema,
      answer: Type.Object({ total: Type.Integer(), ...ActionResult }, { additionalProperties: false }),
      example: {
        parameters: { template: { customId: 'pump' }, action: { key: 'exportSelected' } },
        answer: {
          total: 1,
          message: '1 asset exported',
          download: { fileName: 'export.json', mediaType: 'application/json', data: 'W10=' },
        },
      },
    },
    saveQuery: {
      summary: 'Saves a query of the caller under a name (replacing one of that name)',
      parameters: SaveQuerySchema,
      answer: Empty,
      example: {
        parameters: {
          name: 'big pumps',
          query: { filters: [{ property: 'attributes.power', operator: 'gt', value: 10 }] },
        },
        answer: {},
      },
    },
    deleteQuery: {
      summary: 'Deletes a saved query of the caller',
      parameters: DeleteQuerySchema,
      answer: Empty,
      example: { parameters: { name: 'big pumps' }, answer: {} },
    },
    delete: {
      summary: 'Deletes an asset (unlinkChildAssets: its children become roots)',
      parameters: DeleteSchema,
      answer: Empty,
      example: { parameters: { templateCustomId: 'pump', customId: 'P-1' }, answer: {} },
    },
  },
};

/** The named schemas of the protocol, for the document's `components.schemas`. */
export function dataManagementComponents(): Record<string, TSchema> {
  const out: Record<string, TSchema> = {};
  for (const [name, schema] of Object.entries(SHARED)) out[`${P}.${name}`] = schema;
  const answers: TSchema[] = [];
  const contextCalls: TSchema[] = [];
  const contextMapping: Record<string, string> = {};
  for (const [context, methods] of Object.entries(DATA_MANAGEMENT_METHODS)) {
    const calls: TSchema[] = [];
    const mapping: Record<string, string> = {};
    for (const [method, m] of Object.entries(methods)) {
      const base = `${P}.${context}.${method}`;
      out[`${base}.Parameters`] = { ...m.parameters, examples: [m.example.parameters] } as TSchema;
      out[`${base}.Answer`] = { ...m.answer, examples: [m.example.answer] } as TSchema;
      out[`${base}.Call`] = Type.Object(
        {
          context: Type.Literal(context),
          method: Type.Literal(method),
          parameters: Type.Optional(componentRef(`${base}.Parameters`)),
        },
        {
          additionalProperties: false,
          description: `${context}.${method}: ${m.summary}`,
          examples: [{ context, method, parameters: m.example.parameters }],
        },
      );
      calls.push(componentRef(`${base}.Call`));
      mapping[method] = `#/components/schemas/${base}.Call`;
      answers.push(componentRef(`${base}.Answer`));
    }
    out[`${P}.${context}.Call`] = Type.Unsafe({
      oneOf: calls,
      discriminator: { propertyName: 'method', mapping },
      description: `A call of context ${context}`,
    });
    contextCalls.push(componentRef(`${P}.${context}.Call`));
    contextMapping[context] = `#/components/schemas/${P}.${context}.Call`;
  }
  out[`${P}.Call`] = Type.Unsafe({
    oneOf: contextCalls,
    discriminator: { propertyName: 'context', mapping: contextMapping },
    description: 'One call: {context, method, parameters}',
  });
  out[`${P}.Batch`] = Type.Object(
    { requests: Type.Array(componentRef(`${P}.Call`), { minItems: 1, maxItems: 1000 }) },
    {
      additionalProperties: false,
      description: 'Calls in one transaction: one failing call rolls all back (executeAction runs alone)',
    },
  );
  out[`${P}.Answer`] = Type.Unsafe({ anyOf: answers, description: 'The answer of one call' });
  out[`${P}.BatchAnswer`] = Type.Object(
    { responses: Type.Array(componentRef(`${P}.Answer`), { description: 'One answer per call, in order' }) },
    { additionalProperties: false },
  );
  return out;
}

/** The documented request body and 200 answer of the protocol endpoint. */
export const dataManagementBody = Type.Unsafe({
  oneOf: [componentRef(`${P}.Call`), componentRef(`${P}.Batch`)],
  description:
    'One call {context, method, parameters} (`DataManagement.<Context>.<method>.Call`) or a batch {requests}',
  examples: [{ context: 'Asset', method: 'get', parameters: { templateCustomId: 'pump', customId: 'P-1' } }],
});
export const dataManagementAnswer = Type.Unsafe({
  anyOf: [componentRef(`${P}.Answer`), componentRef(`${P}.BatchAnswer`)],
  description: "The call's answer (`DataManagement.<Context>.<method>.Answer`), or {responses} of a batch",
  examples: [{ asset: { ...P1, attributes: { serial: 'A100', power: 11 } } }],
});

import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import type { FormsContext } from '../forms.context.js';
import {
  AnyVersionParams,
  FormConfig,
  FormIdParams,
  strictValidatorCompiler,
  FORM_CONFIG_EXAMPLE,
} from '../forms.schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';

/** The whole `config` entry of the latest version (decisions.md 11); any authenticated caller. */
export function getFormConfigRoute(app: FastifyInstance, ctx: FormsContext): void {
  app.get<{ Params: Static<typeof FormIdParams> }>(
    '/config/:formId',
    {
      validatorCompiler: strictValidatorCompiler,
      schema: {
        tags: ['forms'],
        summary:
          'The config entry (metaData, configuration, components) of the latest version (any logged-in user or API key)',
        params: FormIdParams,
        response: {
          200: answer(FormConfig, 'The configuration of the form', FORM_CONFIG_EXAMPLE),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) =>
      sendJsonText(reply, (await ctx.forms.latest(request.principal, request.params.formId)).config),
  );
}

export function getFormConfigVersionRoute(app: FastifyInstance, ctx: FormsContext): void {
  app.get<{ Params: Static<typeof AnyVersionParams> }>(
    '/config/:formId/:version',
    {
      validatorCompiler: strictValidatorCompiler,
      schema: {
        tags: ['forms'],
        summary:
          'The config entry of that version; of the latest version when it does not exist (any logged-in user or API key)',
        params: AnyVersionParams,
        response: {
          200: answer(FormConfig, 'The configuration of the form', FORM_CONFIG_EXAMPLE),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) =>
      sendJsonText(
        reply,
        (await ctx.forms.version(request.principal, request.params.formId, request.params.version)).config,
      ),
  );
}

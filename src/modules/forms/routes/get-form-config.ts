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
import { NOT_MODIFIED, sendConditional, taggedAnswer } from '../../../platform/http/entity-tag.js';

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
          200: taggedAnswer(answer(FormConfig, 'The configuration of the form', FORM_CONFIG_EXAMPLE)),
          ...NOT_MODIFIED,
          ...errorResponses(400, 401, 404),
        },
      },
    },
    // Conditional, as the form read (get-form.ts).
    async (request, reply) => {
      const { principal, params } = request;
      const tag = await ctx.tags.form(principal, 'config', params.formId);
      return sendConditional(
        request,
        reply,
        tag,
        async () => (await ctx.forms.latest(principal, params.formId)).config,
      );
    },
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
          200: taggedAnswer(answer(FormConfig, 'The configuration of the form', FORM_CONFIG_EXAMPLE)),
          ...NOT_MODIFIED,
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const { principal, params } = request;
      const tag = await ctx.tags.form(principal, 'config', params.formId, params.version);
      return sendConditional(
        request,
        reply,
        tag,
        async () => (await ctx.forms.version(principal, params.formId, params.version)).config,
      );
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import type { FormsContext } from '../forms.context.js';
import {
  AnyVersionParams,
  FormIdParams,
  FormResponse,
  strictValidatorCompiler,
  FORM_EXAMPLE,
} from '../forms.schemas.js';
import { NOT_MODIFIED, sendConditional, taggedAnswer } from '../../../platform/http/entity-tag.js';
import { formJson } from '../form-json.js';

/** The form in its latest version; any authenticated caller. */
export function getFormRoute(app: FastifyInstance, ctx: FormsContext): void {
  app.get<{ Params: Static<typeof FormIdParams> }>(
    '/forms/:formId',
    {
      validatorCompiler: strictValidatorCompiler,
      schema: {
        tags: ['forms'],
        summary: 'The form in its latest version (any logged-in user or API key)',
        params: FormIdParams,
        response: {
          200: taggedAnswer(answer(FormResponse, 'The form', FORM_EXAMPLE)),
          ...NOT_MODIFIED,
          ...errorResponses(400, 401, 404),
        },
      },
    },
    // Conditional: the tag from the form's change count, read before the form (form-tags.ts).
    async (request, reply) => {
      const { principal, params } = request;
      const tag = await ctx.tags.form(principal, 'form', params.formId);
      return sendConditional(request, reply, tag, async () =>
        formJson(await ctx.forms.latest(principal, params.formId)),
      );
    },
  );
}

/** The form in the given version, or in its latest one when that version does not exist. */
export function getFormVersionRoute(app: FastifyInstance, ctx: FormsContext): void {
  app.get<{ Params: Static<typeof AnyVersionParams> }>(
    '/forms/:formId/:version',
    {
      validatorCompiler: strictValidatorCompiler,
      schema: {
        tags: ['forms'],
        summary: 'The form in that version; the latest version when it does not exist (any logged-in user or API key)',
        params: AnyVersionParams,
        response: {
          200: taggedAnswer(answer(FormResponse, 'The form', FORM_EXAMPLE)),
          ...NOT_MODIFIED,
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const { principal, params } = request;
      const tag = await ctx.tags.form(principal, 'form', params.formId, params.version);
      return sendConditional(request, reply, tag, async () =>
        formJson(await ctx.forms.version(principal, params.formId, params.version)),
      );
    },
  );
}

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
import { sendJsonText } from '../../../platform/http/json-text.js';
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
        response: { 200: answer(FormResponse, 'The form', FORM_EXAMPLE), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) =>
      sendJsonText(reply, formJson(await ctx.forms.latest(request.principal, request.params.formId))),
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
        response: { 200: answer(FormResponse, 'The form', FORM_EXAMPLE), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) =>
      sendJsonText(
        reply,
        formJson(await ctx.forms.version(request.principal, request.params.formId, request.params.version)),
      ),
  );
}

import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { FORMS_RIGHTS, formsGuard } from '../forms.access.js';
import type { FormsContext } from '../forms.context.js';
import { FormIdParams, FormResponse, strictValidatorCompiler, FORM_EXAMPLE } from '../forms.schemas.js';
import { NOT_MODIFIED, sendConditional, taggedAnswer } from '../../../platform/http/entity-tag.js';
import { formListJson } from '../form-json.js';

export function getFormHistoryRoute(app: FastifyInstance, ctx: FormsContext): void {
  app.get<{ Params: Static<typeof FormIdParams> }>(
    '/history/:formId',
    {
      onRequest: formsGuard(FORMS_RIGHTS.readHistory),
      validatorCompiler: strictValidatorCompiler,
      schema: {
        tags: ['forms'],
        summary: 'Every version of the form, oldest first (role FORMS_ADMIN or right FORMS_READ_HISTORY)',
        params: FormIdParams,
        response: {
          200: taggedAnswer(answer(Type.Array(FormResponse), 'Every version, oldest first', [FORM_EXAMPLE])),
          ...NOT_MODIFIED,
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const { principal, params } = request;
      const tag = await ctx.tags.form(principal, 'history', params.formId);
      return sendConditional(request, reply, tag, async () =>
        formListJson(await ctx.forms.history(principal, params.formId)),
      );
    },
  );
}

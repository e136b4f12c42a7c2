import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { FORMS_RIGHTS, formsGuard } from '../forms.access.js';
import type { FormsContext } from '../forms.context.js';
import { FormBody, FormIdParams, FormResponse, strictValidatorCompiler, FORM_EXAMPLE } from '../forms.schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';
import { formJson } from '../form-json.js';

export function addFormRoute(app: FastifyInstance, ctx: FormsContext): void {
  app.post<{ Params: Static<typeof FormIdParams>; Body: Static<typeof FormBody> }>(
    '/forms/:formId',
    {
      onRequest: formsGuard(FORMS_RIGHTS.add),
      validatorCompiler: strictValidatorCompiler,
      schema: {
        tags: ['forms'],
        summary: 'Adds a form; an existing id gets a new version, latest + 1 (role FORMS_ADMIN or right FORMS_ADD)',
        params: FormIdParams,
        body: FormBody,
        response: {
          200: answer(FormResponse, 'The form as stored, in its new version', FORM_EXAMPLE),
          ...errorResponses(400, 401, 413, 415),
        },
      },
    },
    async (request, reply) =>
      sendJsonText(reply, formJson(await ctx.forms.save(request.principal, request.params.formId, request.body))),
  );
}

import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { FORMS_RIGHTS, formsGuard } from '../forms.access.js';
import type { FormsContext } from '../forms.context.js';
import { AnyVersionParams, FormBody, FormResponse, strictValidatorCompiler, FORM_EXAMPLE } from '../forms.schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';
import { formJson } from '../form-json.js';

export function updateFormRoute(app: FastifyInstance, ctx: FormsContext): void {
  app.put<{ Params: Static<typeof AnyVersionParams>; Body: Static<typeof FormBody> }>(
    '/forms/:formId/:version',
    {
      onRequest: formsGuard(FORMS_RIGHTS.update),
      validatorCompiler: strictValidatorCompiler,
      schema: {
        tags: ['forms'],
        summary:
          'Updates a form: the new version is latest + 1 whatever {version} says; a missing form is created with version 1 (role FORMS_ADMIN or right FORMS_UPDATE)',
        params: AnyVersionParams,
        body: FormBody,
        response: {
          200: answer(FormResponse, 'The form as stored in that version', FORM_EXAMPLE),
          ...errorResponses(400, 401, 413, 415),
        },
      },
    },
    async (request, reply) =>
      sendJsonText(reply, formJson(await ctx.forms.save(request.principal, request.params.formId, request.body))),
  );
}

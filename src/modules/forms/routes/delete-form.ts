import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { FORMS_RIGHTS, formsGuard } from '../forms.access.js';
import type { FormsContext } from '../forms.context.js';
import { DeletedResponse, FormIdParams, strictValidatorCompiler } from '../forms.schemas.js';

export function deleteFormRoute(app: FastifyInstance, ctx: FormsContext): void {
  app.delete<{ Params: Static<typeof FormIdParams> }>(
    '/forms/:formId',
    {
      onRequest: formsGuard(FORMS_RIGHTS.delete),
      validatorCompiler: strictValidatorCompiler,
      schema: {
        tags: ['forms'],
        summary: 'Deletes the form with all its versions (role FORMS_ADMIN or right FORMS_DELETE)',
        params: FormIdParams,
        response: {
          200: answer(DeletedResponse, 'The id and the deleted versions', { id: 'contact', deletedVersions: [2, 3] }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => ctx.forms.deleteForm(request.principal, request.params.formId),
  );
}

import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { FORMS_RIGHTS, formsGuard } from '../forms.access.js';
import type { FormsContext } from '../forms.context.js';
import { DeletedResponse, DeleteVersionParams, strictValidatorCompiler } from '../forms.schemas.js';

export function deleteFormVersionRoute(app: FastifyInstance, ctx: FormsContext): void {
  app.delete<{ Params: Static<typeof DeleteVersionParams> }>(
    '/forms/:formId/:version',
    {
      onRequest: formsGuard(FORMS_RIGHTS.delete),
      validatorCompiler: strictValidatorCompiler,
      schema: {
        tags: ['forms'],
        summary: 'Deletes one version; the previous one becomes the latest (role FORMS_ADMIN or right FORMS_DELETE)',
        params: DeleteVersionParams,
        response: {
          200: answer(DeletedResponse, 'The id and the deleted version', { id: 'contact', deletedVersions: [1] }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => ctx.forms.deleteVersion(request.principal, request.params.formId, request.params.version),
  );
}

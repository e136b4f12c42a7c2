import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { FORMS_RIGHTS, formsGuard } from '../forms.access.js';
import type { FormsContext } from '../forms.context.js';
import { FormResponse, FORM_EXAMPLE } from '../forms.schemas.js';
import { sendJsonText } from '../../../platform/http/json-text.js';
import { formListJson } from '../form-json.js';

export function listFormsRoute(app: FastifyInstance, ctx: FormsContext): void {
  app.get(
    '/forms',
    {
      onRequest: formsGuard(FORMS_RIGHTS.readAll),
      schema: {
        tags: ['forms'],
        summary:
          'All forms of the tenant in their latest version, by form id (role FORMS_ADMIN or right FORMS_READ_ALL)',
        response: {
          200: answer(Type.Array(FormResponse), 'The forms in their latest versions', [FORM_EXAMPLE]),
          ...errorResponses(401),
        },
      },
    },
    async (request, reply) => sendJsonText(reply, formListJson(await ctx.forms.list(request.principal))),
  );
}

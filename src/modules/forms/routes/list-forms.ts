import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { answer, errorResponses } from '../../../platform/http/schemas.js';
import { FORMS_RIGHTS, formsGuard } from '../forms.access.js';
import type { FormsContext } from '../forms.context.js';
import { FormResponse, FORM_EXAMPLE } from '../forms.schemas.js';
import { NOT_MODIFIED, sendConditional, taggedAnswer } from '../../../platform/http/entity-tag.js';
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
          200: taggedAnswer(answer(Type.Array(FormResponse), 'The forms in their latest versions', [FORM_EXAMPLE])),
          ...NOT_MODIFIED,
          ...errorResponses(401),
        },
      },
    },
    // Conditional: the tag from the tenant's change count, read before the forms (form-tags.ts).
    async (request, reply) =>
      sendConditional(request, reply, await ctx.tags.list(request.principal), async () =>
        formListJson(await ctx.forms.list(request.principal)),
      ),
  );
}

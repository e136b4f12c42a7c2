// Forms: versioned form definitions per tenant, the /cxf/svc-forms endpoints.
// It owns the form_heads and form_versions tables and reaches nothing but them.
import { defineModule, type ModuleDeps } from '../../platform/module.js';
import type { FormsTables } from './forms.tables.js';
import { FormsRepository } from './forms.repository.js';
import { FormsService } from './forms.service.js';
import type { FormsContext } from './forms.context.js';
import { listFormsRoute } from './routes/list-forms.js';
import { addFormRoute } from './routes/add-form.js';
import { updateFormRoute } from './routes/update-form.js';
import { getFormRoute, getFormVersionRoute } from './routes/get-form.js';
import { getFormHistoryRoute } from './routes/get-form-history.js';
import { getFormConfigRoute, getFormConfigVersionRoute } from './routes/get-form-config.js';
import { deleteFormVersionRoute } from './routes/delete-form-version.js';
import { deleteFormRoute } from './routes/delete-form.js';
import { formsMigrations } from './forms.migrations.js';
import { FormTags } from './form-tags.js';

export type FormsDeps = ModuleDeps<FormsTables>;

/** The forms module: its routes only (nothing runs in the background). */
export const formsModule = defineModule({
  name: 'forms',
  migrations: formsMigrations,
  create(deps: FormsDeps) {
    const ctx: FormsContext = {
      forms: new FormsService(new FormsRepository(deps.data, deps.dialect)),
      tags: new FormTags(deps.data, deps.dialect),
    };
    return {
      prefix: '/cxf/svc-forms',
      async plugin(app) {
        listFormsRoute(app, ctx);
        addFormRoute(app, ctx);
        updateFormRoute(app, ctx);
        getFormRoute(app, ctx);
        getFormVersionRoute(app, ctx);
        getFormHistoryRoute(app, ctx);
        getFormConfigRoute(app, ctx);
        getFormConfigVersionRoute(app, ctx);
        deleteFormVersionRoute(app, ctx);
        deleteFormRoute(app, ctx);
      },
    };
  },
});

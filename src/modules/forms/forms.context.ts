import type { FormsService } from './forms.service.js';

/** What the route files of the module need. */
export interface FormsContext {
  forms: FormsService;
}

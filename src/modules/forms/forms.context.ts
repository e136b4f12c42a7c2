import type { FormTags } from './form-tags.js';
import type { FormsService } from './forms.service.js';

/** What the route files of the module need. */
export interface FormsContext {
  forms: FormsService;
  /** The entity tags of the reads (conditional GETs). */
  tags: FormTags;
}

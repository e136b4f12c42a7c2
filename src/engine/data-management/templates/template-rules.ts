import { Value } from '@sinclair/typebox/value';
import { DM_ERRORS } from '../dm.errors.js';
import { QNAME, TemplateInputSchema, type Attribute, type TemplateInput } from './template.schema.js';

/** Checks a written template against the schema and the rules of decisions section 9; throws 400 naming the problem. */
export function checkTemplate(input: unknown, strict: boolean): TemplateInput {
  if (!Value.Check(TemplateInputSchema, input)) {
    const first = Value.Errors(TemplateInputSchema, input).First();
    throw DM_ERRORS.invalidCall(`template${first?.path ?? ''}: ${first?.message ?? 'invalid'}`, {
      path: `template${first?.path ?? ''}`,
    });
  }
  const t = input as TemplateInput;
  checkAttributes(t.attributes ?? [], strict, 'template/attributes');
  for (const [i, action] of (t.actions ?? []).entries())
    checkAttributes(action.parameters ?? [], strict, `template/actions/${i}/parameters`);
  const actionKeys = new Set<string>();
  for (const action of t.actions ?? []) {
    if (actionKeys.has(action.key)) throw DM_ERRORS.invalidCall(`template/actions: key ${action.key} appears twice`);
    actionKeys.add(action.key);
  }
  return t;
}

function checkAttributes(attributes: Attribute[], strict: boolean, path: string): void {
  const keys = new Set<string>();
  for (const [i, a] of attributes.entries()) {
    if (keys.has(a.key))
      throw DM_ERRORS.invalidCall(`${path}/${i}/key: ${a.key} collides with an earlier attribute`, {
        path: `${path}/${i}/key`,
      });
    keys.add(a.key);
    // Without `strict`, keys that are not QNames are accepted (deprecated; decisions section 11).
    if (strict && !QNAME.test(a.key))
      throw DM_ERRORS.invalidCall(`${path}/${i}/key: ${a.key} is not a QName`, { path: `${path}/${i}/key` });
    if (a.type === 'enum' && !(a.values && a.values.length > 0))
      throw DM_ERRORS.invalidCall(`${path}/${i}/values: an enum attribute lists its values`);
  }
}

/** The template as answered: id first, then the written fields in a fixed order. */
export function templateDoc(id: number, t: TemplateInput): Record<string, unknown> {
  return {
    id,
    customId: t.customId,
    name: t.name ?? '',
    description: t.description ?? '',
    attributes: (t.attributes ?? []).map((a) => ({ versioned: true, required: false, hidden: false, ...a })),
    actions: t.actions ?? [],
    childTemplates: t.childTemplates ?? [],
    restricted: t.restricted ?? false,
    roles: t.roles ?? [],
  };
}

/** The answer without hidden attributes (`withoutHiddenAttributes`). */
export function withoutHidden(doc: Record<string, unknown>): Record<string, unknown> {
  return { ...doc, attributes: (doc.attributes as Array<{ hidden?: boolean }>).filter((a) => !a.hidden) };
}

import type { Restriction } from '../api';

/** A restriction as the form edits it: the user and comma-separated lists. */
export interface RestrictionDraft {
  user: string;
  organisations: string;
  roles: string;
  rights: string;
}

export const emptyRestriction = (): RestrictionDraft => ({ user: '', organisations: '', roles: '', rights: '' });

export function toDraft(r: Restriction | undefined): RestrictionDraft {
  return {
    user: r?.user ?? '',
    organisations: (r?.organisations ?? []).join(', '),
    roles: (r?.roles ?? []).join(', '),
    rights: (r?.rights ?? []).join(', '),
  };
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The restriction the API takes; a user alone wins (the API drops the lists then). */
export function fromDraft(d: RestrictionDraft): Restriction {
  const r: Restriction = {};
  if (d.user.trim()) r.user = d.user.trim();
  for (const key of ['organisations', 'roles', 'rights'] as const) {
    const values = list(d[key]);
    if (values.length) r[key] = values;
  }
  return r;
}

export const isEmptyRestriction = (r: Restriction) =>
  !r.user && !r.organisations?.length && !r.roles?.length && !r.rights?.length;

interface Props {
  legend: string;
  value: RestrictionDraft;
  onChange: (value: RestrictionDraft) => void;
}

/** Who may read (or write) an item: a user, or any of organisations, roles and rights. */
export function RestrictionsEditor({ legend, value, onChange }: Props) {
  const field = (key: keyof RestrictionDraft, label: string, hint?: string) => (
    <label>
      {label}
      <input
        value={value[key]}
        placeholder={hint}
        onInput={(e) => onChange({ ...value, [key]: e.currentTarget.value })}
      />
    </label>
  );
  return (
    <fieldset class="restriction">
      <legend>{legend}</legend>
      {field('user', 'User', 'one login name')}
      {field('organisations', 'Organisations', 'comma-separated')}
      {field('roles', 'Roles', 'comma-separated')}
      {field('rights', 'Rights', 'comma-separated')}
    </fieldset>
  );
}

// The forms of the tenant (the latest version of each), for callers with FORMS_ADMIN or FORMS_READ_ALL.
import { useQuery } from '@tanstack/preact-query';
import { adminApi, can } from '../admin-api';
import { ErrorMessage } from '../components/error-message';
import { href } from '../router';
import type { PageProps } from '../routes';
import './admin-pages.css';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function FormsPage({ session }: PageProps) {
  const forms = useQuery({ queryKey: ['forms'], queryFn: () => adminApi.forms() });
  const history = can.formHistory(session);
  return (
    <>
      <h1>Forms</h1>
      <ErrorMessage error={forms.error} />
      {forms.isPending && <p aria-busy="true">Loading…</p>}
      {forms.data && forms.data.length === 0 && <p>This tenant has no forms.</p>}
      {forms.data && forms.data.length > 0 && (
        <table class="grid">
          <caption class="visually-hidden">Forms with their latest version</caption>
          <thead>
            <tr>
              <th scope="col">Form</th>
              <th scope="col">Name</th>
              <th scope="col" class="num">
                Latest version
              </th>
              <th scope="col">Created on</th>
              <th scope="col">Created by</th>
            </tr>
          </thead>
          <tbody>
            {forms.data.map((f) => (
              <tr key={f.id}>
                <td>{history ? <a href={href(`/forms/${encodeURIComponent(f.id)}`)}>{f.id}</a> : f.id}</td>
                <td>{f.name}</td>
                <td class="num">{f.version}</td>
                <td>
                  <time dateTime={f.createdOn}>{when.format(new Date(f.createdOn))}</time>
                </td>
                <td>{f.createdBy}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

// One form: its versions, a version's definition as formatted JSON, and a side-by-side diff of two versions (the
// diff library is loaded when the first diff is shown). Needs FORMS_ADMIN or FORMS_READ_HISTORY.
import { useQuery } from '@tanstack/preact-query';
import { useEffect, useState } from 'preact/hooks';
import { adminApi, type FormVersion } from '../admin-api';
import { ErrorMessage } from '../components/error-message';
import { href } from '../router';
import type { PageProps } from '../routes';
import './admin-pages.css';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const pretty = (v: FormVersion) => `${JSON.stringify(v.config, null, 2)}\n`;

export function FormPage({ params }: PageProps) {
  const formId = params.formId;
  const history = useQuery({ queryKey: ['forms', formId, 'history'], queryFn: () => adminApi.formHistory(formId) });
  const versions = history.data ?? [];
  const [shown, setShown] = useState<number | undefined>(undefined);
  const [left, setLeft] = useState<number | undefined>(undefined);
  const [right, setRight] = useState<number | undefined>(undefined);
  const [compared, setCompared] = useState<[number, number] | undefined>(undefined);

  // Defaults once the versions are known: show the latest, compare the two latest.
  useEffect(() => {
    if (versions.length === 0) return;
    const latest = versions[versions.length - 1].version;
    setShown((s) => s ?? latest);
    setRight((r) => r ?? latest);
    setLeft((l) => l ?? versions[Math.max(0, versions.length - 2)].version);
  }, [history.data]);

  const byVersion = (n: number | undefined) => versions.find((v) => v.version === n);
  const current = byVersion(shown);
  const pair = compared && ([byVersion(compared[0]), byVersion(compared[1])] as const);

  return (
    <>
      <p class="breadcrumb">
        <a href={href('/forms')}>Forms</a> /
      </p>
      <h1>Form {formId}</h1>
      <ErrorMessage error={history.error} />
      {history.isPending && <p aria-busy="true">Loading…</p>}
      {versions.length > 0 && (
        <>
          <h2>Versions</h2>
          <table class="grid">
            <caption class="visually-hidden">Versions of form {formId}, oldest first</caption>
            <thead>
              <tr>
                <th scope="col" class="num">
                  Version
                </th>
                <th scope="col">Name</th>
                <th scope="col">Created on</th>
                <th scope="col">Created by</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr key={v.version} aria-current={v.version === shown ? 'true' : undefined}>
                  <td class="num">{v.version}</td>
                  <td>{v.name}</td>
                  <td>
                    <time dateTime={v.createdOn}>{when.format(new Date(v.createdOn))}</time>
                  </td>
                  <td>{v.createdBy}</td>
                  <td class="row-actions">
                    <button
                      type="button"
                      aria-pressed={v.version === shown}
                      aria-label={`Show version ${v.version}`}
                      onClick={() => setShown(v.version)}
                    >
                      Show
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>

          <h2>Compare versions</h2>
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              if (left !== undefined && right !== undefined) setCompared([left, right]);
            }}
          >
            <VersionSelect label="Left version" versions={versions} value={left} onChange={setLeft} />
            <VersionSelect label="Right version" versions={versions} value={right} onChange={setRight} />
            <button type="submit">Compare</button>
          </form>
          {pair?.[0] && pair[1] && <SideBySide left={pair[0]} right={pair[1]} />}

          {current && (
            <>
              <h2>Definition of version {current.version}</h2>
              <section aria-label={`Definition of version ${current.version}`}>
                {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
                <pre class="json-view" tabIndex={0}>
                  {pretty(current)}
                </pre>
              </section>
            </>
          )}
        </>
      )}
    </>
  );
}

function VersionSelect(props: {
  label: string;
  versions: FormVersion[];
  value: number | undefined;
  onChange: (v: number) => void;
}) {
  return (
    <label>
      {props.label}
      <select value={String(props.value ?? '')} onChange={(e) => props.onChange(Number(e.currentTarget.value))}>
        {props.versions.map((v) => (
          <option key={v.version} value={String(v.version)}>
            {v.version}
          </option>
        ))}
      </select>
    </label>
  );
}

interface Row {
  left?: { n: number; text: string; changed: boolean };
  right?: { n: number; text: string; changed: boolean };
}

/** Lines of the two definitions side by side: removed on the left, added on the right, changed lines paired. */
function SideBySide({ left, right }: { left: FormVersion; right: FormVersion }) {
  const [rows, setRows] = useState<Row[] | undefined>(undefined);
  const [failed, setFailed] = useState<unknown>(undefined);
  useEffect(() => {
    let live = true;
    import('diff').then(
      ({ diffLines }) => live && setRows(toRows(diffLines(pretty(left), pretty(right)))),
      (err: unknown) => live && setFailed(err),
    );
    return () => {
      live = false;
    };
  }, [left, right]);
  const changes = rows?.filter((r) => r.left?.changed || r.right?.changed).length ?? 0;
  return (
    <section aria-labelledby="diff-heading">
      <h3 id="diff-heading">
        Version {left.version} and version {right.version}
      </h3>
      <ErrorMessage error={failed} />
      {!rows && !failed && <p aria-busy="true">Comparing…</p>}
      {rows && (
        <>
          <p role="status">{changes === 0 ? 'The definitions are the same.' : `${changes} changed lines.`}</p>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
          <section class="diff" tabIndex={0} aria-label="Differences">
            <table aria-label={`Version ${left.version} and version ${right.version}, side by side`}>
              <thead class="visually-hidden">
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Version {left.version}</th>
                  <th scope="col">Line</th>
                  <th scope="col">Version {right.version}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r, i) => (
                  <tr key={i}>
                    <Cells side={r.left} kind="del" />
                    <Cells side={r.right} kind="add" />
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </section>
  );
}

function Cells({ side, kind }: { side: Row['left']; kind: 'del' | 'add' }) {
  if (!side) {
    return (
      <>
        <td class="ln gap" />
        <td class="gap" />
      </>
    );
  }
  const cls = side.changed ? kind : undefined;
  return (
    <>
      <td class={`ln ${cls ?? ''}`}>{side.n}</td>
      <td class={cls} data-change={side.changed ? (kind === 'del' ? 'removed' : 'added') : undefined}>
        {side.changed && <span class="visually-hidden">{kind === 'del' ? 'removed: ' : 'added: '}</span>}
        {side.text}
      </td>
    </>
  );
}

function toRows(parts: Array<{ value: string; added?: boolean; removed?: boolean }>): Row[] {
  const rows: Row[] = [];
  let l = 0;
  let r = 0;
  const lines = (value: string) => value.replace(/\n$/, '').split('\n');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.removed) {
      const removed = lines(part.value);
      const next = parts[i + 1];
      const added = next?.added ? lines(next.value) : [];
      if (next?.added) i++;
      for (let k = 0; k < Math.max(removed.length, added.length); k++) {
        rows.push({
          left: k < removed.length ? { n: ++l, text: removed[k], changed: true } : undefined,
          right: k < added.length ? { n: ++r, text: added[k], changed: true } : undefined,
        });
      }
    } else if (part.added) {
      for (const text of lines(part.value)) rows.push({ right: { n: ++r, text, changed: true } });
    } else {
      for (const text of lines(part.value)) {
        rows.push({ left: { n: ++l, text, changed: false }, right: { n: ++r, text, changed: false } });
      }
    }
  }
  return rows;
}

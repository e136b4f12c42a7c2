// The tenant's audit log (role ADMIN): filters for the time range, the user, the action and the outcome (applied by
// the API), paging with the total, and the CSV export of everything the filter matches.
import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { type AuditQuery, type AuditRecord, adminApi } from '../admin-api';
import { ErrorMessage } from '../components/error-message';
import { Pager } from '../components/pager';
import type { PageProps } from '../routes';
import './admin-pages.css';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
/** The actions the service records (the field also takes any other). */
const KNOWN_ACTIONS = ['login', 'logout', 'token.mint', 'sessions.endAll', 'apikey.use'];
const EXPORT_PAGE = 1000;
const COLUMNS = ['id', 'at', 'actor', 'action', 'outcome', 'remoteAddress', 'userAgent', 'detail'] as const;

/** `datetime-local` (the browser's time zone) to an ISO instant; empty stays absent. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function AuditPage(_: PageProps) {
  const [applied, setApplied] = useState<AuditQuery>({});
  const [start, setStart] = useState(0);
  const [limit, setLimit] = useState(50);
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState('');
  const log = useQuery({
    queryKey: ['audit', applied, start, limit],
    // The answer keeps its start: the pager describes the page shown while the next one loads (components/pager.tsx).
    queryFn: async () => ({ ...(await adminApi.audit(applied, start, limit)), shownStart: start }),
    placeholderData: keepPreviousData,
  });

  const apply = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    setApplied({
      from: instant(text('from')),
      to: instant(text('to')),
      actor: text('actor') || undefined,
      action: text('action') || undefined,
      outcome: (text('outcome') || undefined) as AuditQuery['outcome'],
    });
    setStart(0);
  };

  const exportCsv = async () => {
    setExporting(true);
    setExportError(undefined);
    try {
      const rows: AuditRecord[] = [];
      for (let at = 0; ; at += EXPORT_PAGE) {
        const page = await adminApi.audit(applied, at, EXPORT_PAGE);
        rows.push(...page.items);
        if (page.items.length < EXPORT_PAGE || rows.length >= page.total) break;
      }
      const blob = new Blob([toCsv(rows)], { type: 'text/csv;charset=utf-8' });
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `audit-${new Date().toISOString().replace(/[:.]/g, '-')}.csv`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setNotice(`Exported ${rows.length} records.`);
    } catch (err) {
      setExportError(err);
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <h1>Audit log</h1>
      <form class="audit-filters" aria-label="Audit filters" onSubmit={apply}>
        <label>
          From
          <input type="datetime-local" name="from" step="1" />
        </label>
        <label>
          To
          <input type="datetime-local" name="to" step="1" />
        </label>
        <label>
          User
          <input name="actor" maxLength={256} autoComplete="off" />
        </label>
        <label>
          Action
          <input name="action" maxLength={64} list="audit-actions" autoComplete="off" />
        </label>
        <datalist id="audit-actions">
          {KNOWN_ACTIONS.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <label>
          Outcome
          <select name="outcome">
            <option value="">Any</option>
            <option value="success">Success</option>
            <option value="failure">Failure</option>
          </select>
        </label>
        <button type="submit" class="primary">
          Apply filters
        </button>
        <button type="button" onClick={exportCsv} disabled={exporting}>
          {exporting ? 'Exporting…' : 'Export CSV'}
        </button>
      </form>
      <ErrorMessage error={log.error ?? exportError} />
      <p class="notice" role="status">
        {notice}
      </p>
      {log.data && log.data.total === 0 && <p>No audit record matches.</p>}
      {log.data && log.data.items.length > 0 && (
        <table class="grid" aria-label="Audit records">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">User</th>
              <th scope="col">Action</th>
              <th scope="col">Outcome</th>
              <th scope="col">Address</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {log.data.items.map((r) => (
              <tr key={r.id}>
                <td>
                  <time dateTime={r.at}>{when.format(new Date(r.at))}</time>
                </td>
                <td>{r.actor}</td>
                <td>{r.action}</td>
                <td class={`outcome-${r.outcome}`}>{r.outcome}</td>
                <td>{r.remoteAddress}</td>
                <td class="mono">{Object.keys(r.detail).length ? JSON.stringify(r.detail) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {log.data && (
        <Pager
          start={start}
          limit={limit}
          total={log.data.total}
          shown={{ start: log.data.shownStart, count: log.data.items.length }}
          onStart={setStart}
          onLimit={(l) => {
            setLimit(l);
            setStart(0);
          }}
        />
      )}
    </>
  );
}

/**
 * RFC 4180 CSV with a header row; `detail` as JSON. A cell that a spreadsheet would read as a formula (`=`, `+`,
 * `-`, `@`, tab, carriage return first) gets a leading `'`: actors and user agents come from outside.
 */
export function toCsv(rows: AuditRecord[]): string {
  const cell = (value: string) => {
    const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const lines = [COLUMNS.join(',')];
  for (const r of rows) {
    lines.push(COLUMNS.map((c) => cell(c === 'detail' ? JSON.stringify(r.detail) : String(r[c]))).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

const count = new Intl.NumberFormat();

interface Props {
  start: number;
  limit: number;
  total: number;
  onStart: (start: number) => void;
  onLimit: (limit: number) => void;
}

/** Paging with the total: "21–40 of 1,234", previous and next, the page size. */
export function Pager({ start, limit, total, onStart, onLimit }: Props) {
  const first = total === 0 ? 0 : start + 1;
  const last = Math.min(start + limit, total);
  return (
    <nav class="pager" aria-label="Pages">
      <span aria-live="polite">
        {count.format(first)}–{count.format(last)} of {count.format(total)}
      </span>
      <button type="button" disabled={start === 0} onClick={() => onStart(Math.max(0, start - limit))}>
        Previous page
      </button>
      <button type="button" disabled={start + limit >= total} onClick={() => onStart(start + limit)}>
        Next page
      </button>
      <label>
        Page size
        <select value={String(limit)} onChange={(e) => onLimit(Number(e.currentTarget.value))}>
          {[10, 20, 50, 100].map((n) => (
            <option key={n} value={String(n)}>
              {n}
            </option>
          ))}
        </select>
      </label>
    </nav>
  );
}

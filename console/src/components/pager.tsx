const count = new Intl.NumberFormat();

interface Props {
  start: number;
  limit: number;
  total: number;
  onStart: (start: number) => void;
  onLimit: (limit: number) => void;
  /**
   * The page on screen, which may lag behind `start` (the previous page stays shown while the next one loads): the
   * text counts the rows shown, so it never names rows the table does not hold yet.
   */
  shown: { start: number; count: number };
}

/** Paging with the total: "21–40 of 1,234", previous and next, the page size. */
export function Pager({ start, limit, total, onStart, onLimit, shown }: Props) {
  const first = total === 0 ? 0 : shown.start + 1;
  const last = Math.min(shown.start + shown.count, total);
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

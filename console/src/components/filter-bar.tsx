import { useState } from 'preact/hooks';

export interface AppliedFilter {
  filter: string;
  query: string;
}

interface Props {
  value: AppliedFilter;
  onApply: (value: AppliedFilter) => void;
}

/** The storage filter (JSON, checked before it is sent) and the Lucene query string of a store's list. */
export function FilterBar({ value, onApply }: Props) {
  const [filter, setFilter] = useState(value.filter);
  const [query, setQuery] = useState(value.query);
  const [error, setError] = useState<string | undefined>(undefined);
  const apply = (event: Event) => {
    event.preventDefault();
    const text = filter.trim();
    if (text) {
      try {
        JSON.parse(text);
      } catch (err) {
        setError(`The filter is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
    }
    setError(undefined);
    onApply({ filter: text, query: query.trim() });
  };
  const clear = () => {
    setFilter('');
    setQuery('');
    setError(undefined);
    onApply({ filter: '', query: '' });
  };
  return (
    <form class="filter-bar" onSubmit={apply} aria-label="Filter">
      <label>
        Filter (JSON)
        <textarea
          rows={2}
          spellcheck={false}
          placeholder='[{"property": "value.total", "operator": "gte", "value": 100}]'
          value={filter}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'filter-error' : undefined}
          onInput={(e) => setFilter(e.currentTarget.value)}
        />
      </label>
      <label>
        Query
        <input
          type="search"
          placeholder='name:"Order 1001" OR invoice'
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      </label>
      <div class="actions">
        <button type="submit">Apply</button>
        <button type="button" onClick={clear}>
          Clear
        </button>
      </div>
      {error && (
        <p id="filter-error" class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

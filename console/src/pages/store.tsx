import { useCallback, useState } from 'preact/hooks';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/preact-query';
import { api, type ItemWrite, type StoreItem } from '../api';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage } from '../components/error-message';
import { type AppliedFilter, FilterBar } from '../components/filter-bar';
import { type EditorTarget, ItemEditor } from '../components/item-editor';
import { Pager } from '../components/pager';
import { useStoreStream } from '../live';
import { href } from '../router';
import type { PageProps } from '../routes';

type Direction = 'ASC' | 'DESC';
interface Sort {
  field: string;
  direction: Direction;
}

const COLUMNS: Array<{ field: string; label: string }> = [
  { field: 'id', label: 'Id' },
  { field: 'name', label: 'Name' },
  { field: 'value', label: 'Value' },
  { field: 'updatedOn', label: 'Updated on' },
  { field: 'updatedBy', label: 'Updated by' },
];
const SORTABLE = new Set(['id', 'name', 'updatedOn', 'updatedBy']);

/** A JSON value in one table cell: short, the whole in its title. */
function preview(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** Runs `work` on every id, a few at a time; answers the ids that failed with their errors. */
async function eachId(ids: string[], work: (id: string) => Promise<unknown>): Promise<Array<[string, unknown]>> {
  const failed: Array<[string, unknown]> = [];
  const queue = [...ids];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      await work(id).catch((err: unknown) => failed.push([id, err]));
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return failed;
}

/** One store: its items (filtered, sorted, paged, live), the item editor, deletes and the export. */
export function StorePage({ params }: PageProps) {
  const storeId = params.storeId;
  const queryClient = useQueryClient();
  const [applied, setApplied] = useState<AppliedFilter>({ filter: '', query: '' });
  const [sort, setSort] = useState<Sort | undefined>(undefined);
  const [start, setStart] = useState(0);
  const [limit, setLimit] = useState(20);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editor, setEditor] = useState<EditorTarget | undefined>(undefined);
  const [confirm, setConfirm] = useState<{ question: string; ids: string[] } | undefined>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState('');

  const listQuery = { ...applied, sort: sort ? `${sort.field}|${sort.direction}` : undefined, start, limit };
  const items = useQuery({
    queryKey: ['items', storeId, listQuery],
    // The answer keeps the query it answers: while the next page loads, the previous one stays on screen and the pager
    // describes the page shown, not the one asked for.
    queryFn: async () => ({ ...(await api.items(storeId, listQuery)), shownStart: listQuery.start }),
    placeholderData: keepPreviousData,
  });

  const refresh = useCallback(() => {
    queryClient.invalidateQueries({ queryKey: ['items', storeId] });
    queryClient.invalidateQueries({ queryKey: ['stores'] });
  }, [queryClient, storeId]);
  const live = useStoreStream(storeId, refresh);

  // Apply always reads again, also when the filter did not change (a user's way to refresh).
  const applyFilter = (next: AppliedFilter) => {
    setApplied(next);
    setStart(0);
    setSelected(new Set());
    refresh();
  };
  const sortBy = (field: string) => {
    setStart(0);
    if (sort?.field !== field) setSort({ field, direction: 'ASC' });
    else if (sort.direction === 'ASC') setSort({ field, direction: 'DESC' });
    else setSort(undefined);
  };

  const save = async (itemId: string | undefined, item: ItemWrite) => {
    if (itemId) await api.put(storeId, itemId, item);
    else await api.create(storeId, item);
    setEditor(undefined);
    setNotice(itemId ? `Saved ${itemId}.` : 'Created the item.');
    refresh();
  };

  const remove = async (ids: string[]) => {
    setConfirm(undefined);
    setActionError(undefined);
    const failed = await eachId(ids, (id) => api.remove(storeId, id));
    const done = ids.length - failed.length;
    setSelected(new Set([...selected].filter((id) => failed.some(([f]) => f === id))));
    setNotice(`Deleted ${done} of ${ids.length} item${ids.length === 1 ? '' : 's'}.`);
    if (failed.length) setActionError(failed[0][1]);
    refresh();
  };

  const page = items.data;
  const pageIds = page?.items.map((i) => i.id) ?? [];
  const allSelected = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  const toggleAll = () => setSelected(allSelected ? new Set() : new Set(pageIds));
  const exportQuery = { ...applied, sort: listQuery.sort };

  return (
    <>
      <p class="breadcrumb">
        <a href={href('/stores')}>Stores</a> / <span>{storeId}</span>
      </p>
      <div class="title-row">
        <h1>Store {storeId}</h1>
        <span class={`live live-${live}`} role="status">
          {live === 'live' ? 'Live' : live === 'connecting' ? 'Connecting…' : 'Not live'}
        </span>
      </div>
      <FilterBar value={applied} onApply={applyFilter} />
      <div class="toolbar">
        <button type="button" class="primary" onClick={() => setEditor({ mode: 'create' })}>
          New item
        </button>
        <button
          type="button"
          class="danger"
          disabled={selected.size === 0}
          onClick={() =>
            setConfirm({
              question: `Delete ${selected.size} selected item(s)? This cannot be undone.`,
              ids: [...selected],
            })
          }
        >
          Delete selected ({selected.size})
        </button>
        <a class="button" href={api.exportUrl(storeId, 'csv', exportQuery)} download={`${storeId}.csv`}>
          Export CSV
        </a>
        <a class="button" href={api.exportUrl(storeId, 'json', exportQuery)} download={`${storeId}.json`}>
          Export JSON
        </a>
      </div>
      <p class="notice" role="status">
        {notice}
      </p>
      <ErrorMessage error={items.error ?? actionError} />
      {page && (
        <>
          <table class="grid items" aria-busy={items.isFetching ? 'true' : undefined}>
            <caption class="visually-hidden">Items of store {storeId}</caption>
            <thead>
              <tr>
                <th scope="col">
                  <input
                    type="checkbox"
                    aria-label="Select all on this page"
                    checked={allSelected}
                    onChange={toggleAll}
                  />
                </th>
                {COLUMNS.map((c) => {
                  const sorted = sort?.field === c.field ? sort.direction : undefined;
                  return (
                    <th
                      key={c.field}
                      scope="col"
                      aria-sort={sorted === 'ASC' ? 'ascending' : sorted === 'DESC' ? 'descending' : undefined}
                    >
                      {SORTABLE.has(c.field) ? (
                        <button type="button" class="sort" onClick={() => sortBy(c.field)}>
                          {c.label}
                          <span aria-hidden="true">{sorted === 'ASC' ? ' ▲' : sorted === 'DESC' ? ' ▼' : ''}</span>
                        </button>
                      ) : (
                        c.label
                      )}
                    </th>
                  );
                })}
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((item: StoreItem) => (
                <tr key={item.id}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select ${item.id}`}
                      checked={selected.has(item.id)}
                      onChange={() => toggle(item.id)}
                    />
                  </td>
                  <td class="mono">{item.id}</td>
                  <td>{item.name ?? ''}</td>
                  <td class="mono" title={JSON.stringify(item.value)}>
                    {preview(item.value)}
                  </td>
                  <td>{item.updatedOn ? new Date(item.updatedOn).toLocaleString() : ''}</td>
                  <td>{item.updatedBy}</td>
                  <td class="row-actions">
                    <button
                      type="button"
                      aria-label={`Edit ${item.id}`}
                      onClick={() => setEditor({ mode: 'edit', item })}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete ${item.id}`}
                      onClick={() =>
                        setConfirm({ question: `Delete item ${item.id}? This cannot be undone.`, ids: [item.id] })
                      }
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {page.items.length === 0 && <p>No item matches, or none you may read.</p>}
          <Pager
            start={start}
            limit={limit}
            total={page.total}
            shown={{ start: page.shownStart, count: page.items.length }}
            onStart={setStart}
            onLimit={(n) => {
              setLimit(n);
              setStart(0);
            }}
          />
        </>
      )}
      <ItemEditor target={editor} onSave={save} onClose={() => setEditor(undefined)} />
      <ConfirmDialog
        question={confirm?.question}
        confirmLabel="Delete"
        onConfirm={() => confirm && remove(confirm.ids)}
        onCancel={() => setConfirm(undefined)}
      />
    </>
  );
}

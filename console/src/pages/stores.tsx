import { useQuery } from '@tanstack/preact-query';
import { api } from '../api';
import { ErrorMessage } from '../components/error-message';
import { href } from '../router';

const count = new Intl.NumberFormat();

/** The stores of the caller's tenant where it may read an item, with the number it may read. */
export function StoresPage() {
  const stores = useQuery({ queryKey: ['stores'], queryFn: () => api.stores() });
  return (
    <>
      <h1>Stores</h1>
      <ErrorMessage error={stores.error} />
      {stores.isPending && <p aria-busy="true">Loading…</p>}
      {stores.data && stores.data.stores.length === 0 && <p>No store has an item you may read.</p>}
      {stores.data && stores.data.stores.length > 0 && (
        <table class="grid">
          <caption class="visually-hidden">Stores with the number of items you may read</caption>
          <thead>
            <tr>
              <th scope="col">Store</th>
              <th scope="col" class="num">
                Items you may read
              </th>
            </tr>
          </thead>
          <tbody>
            {stores.data.stores.map((s) => (
              <tr key={s.storeId}>
                <td>
                  <a href={href(`/stores/${encodeURIComponent(s.storeId)}`)}>{s.storeId}</a>
                </td>
                <td class="num">{count.format(s.readableItems)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <OpenStore />
    </>
  );
}

/** Any store by its id: a store exists from its first write, so an empty one is opened (and created) by name. */
function OpenStore() {
  const open = (event: Event) => {
    event.preventDefault();
    const id = new FormData(event.currentTarget as HTMLFormElement).get('storeId');
    if (typeof id === 'string' && id.trim()) window.location.hash = `#/stores/${encodeURIComponent(id.trim())}`;
  };
  return (
    <form class="inline" onSubmit={open}>
      <label>
        Store id
        <input name="storeId" required pattern="[A-Za-z0-9._\-]{1,100}" />
      </label>
      <button type="submit">Open store</button>
    </form>
  );
}

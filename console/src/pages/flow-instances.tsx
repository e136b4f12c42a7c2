// The configured flow instances (role ADMIN or right FLOW_INSTANCES_READ): whether each can be reached (the
// service's short, cached probe) and the proxy's last failed calls to it from this tenant.
import { useQuery } from '@tanstack/preact-query';
import { ErrorMessage } from '../components/error-message';
import { type FlowInstance, flowApi } from '../engine-api';
import type { PageProps } from '../routes';
import './admin-pages.css';
import './engine-pages.css';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const time = (iso: string) => <time dateTime={iso}>{when.format(new Date(iso))}</time>;

function reachability(i: FlowInstance): string {
  if (i.reachable) return `Reachable (HTTP ${i.probeStatus}, ${i.latencyMs} ms)`;
  return `Unreachable (${i.probeError ?? 'no answer'})`;
}

function LastErrors({ instance }: { instance: FlowInstance }) {
  if (instance.lastErrors.length === 0) return <p>No recent errors of {instance.id}.</p>;
  return (
    <table class="grid">
      <caption>Last errors of {instance.id}</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Method</th>
          <th scope="col">Path</th>
          <th scope="col" class="num">
            Status
          </th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>
        {instance.lastErrors.map((e) => (
          <tr key={`${e.at}${e.path}`}>
            <td>{time(e.at)}</td>
            <td>{e.method}</td>
            <td>
              <code>{e.path}</code>
            </td>
            <td class="num">{e.status}</td>
            <td>{e.error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function FlowInstancesPage(_: PageProps) {
  const instances = useQuery({ queryKey: ['flow-instances'], queryFn: () => flowApi.instances() });
  const list = instances.data?.instances;
  return (
    <>
      <h1>Flow instances</h1>
      <p>
        Reachable means the instance answered a short request of the service (checked at most every 5 seconds). Errors
        are the proxy's failed calls by users of this tenant, as this server saw them.
      </p>
      <button type="button" onClick={() => instances.refetch()} disabled={instances.isFetching}>
        Check again
      </button>
      <ErrorMessage error={instances.error} />
      {instances.isPending && <p aria-busy="true">Loading…</p>}
      {list && list.length === 0 && <p>No flow instances are configured.</p>}
      {list && list.length > 0 && (
        <table class="grid">
          <caption class="visually-hidden">Flow instances</caption>
          <thead>
            <tr>
              <th scope="col">Instance</th>
              <th scope="col">Origin</th>
              <th scope="col">Reachability</th>
              <th scope="col">Checked</th>
              <th scope="col" class="num">
                Recent errors
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((i) => (
              <tr key={i.id} data-instance={i.id}>
                <th scope="row">{i.id}</th>
                <td>{i.origin}</td>
                <td class={i.reachable ? 'reachable' : 'unreachable'}>{reachability(i)}</td>
                <td>{time(i.checkedAt)}</td>
                <td class="num">{i.lastErrors.length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list?.map((i) => (
        <section key={i.id} class="instance-errors" aria-label={`Errors of ${i.id}`}>
          <h2>{i.id}</h2>
          <LastErrors instance={i} />
        </section>
      ))}
    </>
  );
}

// The assets of one template, and an opened asset's versions and child assets, read through data management.
import { useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import type { DmAsset, EngineData } from '../engine-api';
import { ErrorMessage } from './error-message';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const time = (iso: string) => <time dateTime={iso}>{when.format(new Date(iso))}</time>;
const nameOf = (a: { customId?: string | null; id: number }) => a.customId ?? `#${a.id}`;

function AssetTable({
  caption,
  assets,
  onOpen,
}: {
  caption: string;
  assets: DmAsset[];
  onOpen?: (a: DmAsset) => void;
}) {
  return (
    <table class="grid">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Custom id</th>
          <th scope="col">Display name</th>
          <th scope="col">Attributes</th>
          <th scope="col">Updated</th>
          {onOpen && <th scope="col">Details</th>}
        </tr>
      </thead>
      <tbody>
        {assets.map((a) => (
          <tr key={a.id}>
            <td>{nameOf(a)}</td>
            <td>{a.displayName}</td>
            <td class="mono">{a.attributes ? JSON.stringify(a.attributes) : ''}</td>
            <td>{time(a.version.updatedOn)}</td>
            {onOpen && (
              <td>
                <button type="button" onClick={() => onOpen(a)}>
                  Open {nameOf(a)}
                </button>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AssetDetails({ dm, user, id }: { dm: EngineData; user: string; id: number }) {
  const asset = useQuery({ queryKey: ['dm', user, 'asset', id], queryFn: () => dm.asset(id) });
  const children = useQuery({ queryKey: ['dm', user, 'children', id], queryFn: () => dm.children(id) });
  const a = asset.data?.asset;
  return (
    <section aria-label="Asset details">
      <ErrorMessage error={asset.error ?? children.error} />
      {a && (
        <>
          <h3>Asset {nameOf(a)}</h3>
          <table class="grid">
            <caption>Versions of {nameOf(a)}</caption>
            <thead>
              <tr>
                <th scope="col">Updated on</th>
                <th scope="col">By</th>
                <th scope="col">Comment</th>
                <th scope="col">Active</th>
              </tr>
            </thead>
            <tbody>
              {(a.allVersions ?? []).map((v) => (
                <tr key={v.updatedOn}>
                  <td>{time(v.updatedOn)}</td>
                  <td>{v.updatedBy}</td>
                  <td>{v.comment}</td>
                  <td>{v.active ? 'active' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {a && children.data?.total === 0 && <p>{nameOf(a)} has no child assets.</p>}
      {a && children.data && children.data.total > 0 && (
        <AssetTable caption={`Child assets of ${nameOf(a)}`} assets={children.data.assets as DmAsset[]} />
      )}
    </section>
  );
}

export function TemplateAssets({
  dm,
  user,
  templateCustomId,
}: {
  dm: EngineData;
  user: string;
  templateCustomId: string;
}) {
  const assets = useQuery({
    queryKey: ['dm', user, 'assets', templateCustomId],
    queryFn: () => dm.assets(templateCustomId),
  });
  const [open, setOpen] = useState<number | undefined>(undefined);
  return (
    <section aria-label={`Assets of ${templateCustomId}`}>
      <h2>Assets of {templateCustomId}</h2>
      <ErrorMessage error={assets.error} />
      {assets.isPending && <p aria-busy="true">Loading…</p>}
      {assets.data?.total === 0 && <p>{templateCustomId} has no assets.</p>}
      {assets.data && assets.data.total > 0 && (
        <AssetTable
          caption={`Assets of template ${templateCustomId}`}
          assets={assets.data.assets as DmAsset[]}
          onOpen={(a) => setOpen(a.id)}
        />
      )}
      {open !== undefined && <AssetDetails dm={dm} user={user} id={open} />}
    </section>
  );
}

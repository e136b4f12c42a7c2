// The notifications the notification benchmarks seed straight into the database (bench/notifications.mjs,
// bench/notifications-pg-profile.mjs): one recipient each, a role, an organisation or a user in turn.
import { createHash } from 'node:crypto';

/** recipient-sets.ts's key of a one-name set (kept in step by hand: the benches also run builds without it). */
export const setKey = (kind, name) =>
  createHash('sha256')
    .update(JSON.stringify([kind, name]))
    .digest('base64url');

/** Inserts `count` notifications and their recipient rows on PostgreSQL in one statement, dated from `firstDate` on. */
export async function seedPostgresNotifications(client, tenant, count, firstDate) {
  await client.query(
    `with src as (
       select g, (array['role','organisation','user'])[g % 3 + 1] as kind,
              case g % 3 when 0 then 'role-' || (g % 50) when 1 then 'org-' || (g % 20) else 'user-' || (g % 100) end as name
       from generate_series(0, $2::int - 1) g),
     ins as (
       insert into notifications (tenant_id, id, doc, date, version)
       select $1, 'n-' || g,
              jsonb_build_object('id', 'n-' || g, 'priority', 5, 'subject', 'Notification ' || g, 'message', 'Something happened to order ' || g,
                'recipients', jsonb_build_array(name), 'recipientsType', kind, 'originator', 'seed', 'type', 'info')::text,
              $3::bigint + g, 1
       from src order by g
       returning seq, id, date)
     insert into notification_recipients (tenant_id, kind, name, date, notification_seq)
     select $1, src.kind, src.name, ins.date, ins.seq from ins join src on ins.id = 'n-' || src.g`,
    [tenant, count, firstDate],
  );
}

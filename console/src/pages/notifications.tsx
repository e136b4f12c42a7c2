// The caller's inbox (newest first, paged, live through the bell's stream subscription) and, for callers with
// NOTIFICATION_ADMIN (or the add/update/delete rights), the form to send one to users, roles or organisations, and
// edit and delete on each row.
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import {
  adminApi,
  can,
  type Notification,
  type NotificationWrite,
  type Priority,
  type RecipientsType,
} from '../admin-api';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage } from '../components/error-message';
import { NOTIFICATIONS_KEY } from '../components/notification-bell';
import { Pager } from '../components/pager';
import type { PageProps } from '../routes';
import './admin-pages.css';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const PRIORITY_LABEL: Record<number, string> = { 0: 'low', 5: 'normal', 10: 'high' };

export function NotificationsPage({ session }: PageProps) {
  const queryClient = useQueryClient();
  const [start, setStart] = useState(0);
  const [limit, setLimit] = useState(20);
  const [editing, setEditing] = useState<Notification | undefined>(undefined);
  const [confirm, setConfirm] = useState<Notification | undefined>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState('');
  const inbox = useQuery({
    queryKey: [...NOTIFICATIONS_KEY, 'inbox', start, limit],
    // The answer keeps its start: the pager describes the page shown while the next one loads (components/pager.tsx).
    queryFn: async () => ({ ...(await adminApi.notifications(start, limit)), shownStart: start }),
    placeholderData: keepPreviousData,
  });
  const mayAdd = can.addNotification(session);
  const mayUpdate = can.updateNotification(session);
  const mayDelete = can.deleteNotification(session);
  const refresh = () => queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_KEY });

  const remove = async (n: Notification) => {
    setConfirm(undefined);
    setActionError(undefined);
    try {
      await adminApi.deleteNotification(n.id);
      setNotice(`Deleted “${n.subject}”.`);
      if (editing?.id === n.id) setEditing(undefined);
      await refresh();
    } catch (err) {
      setActionError(err);
    }
  };

  return (
    <>
      <h1>Notifications</h1>
      <ErrorMessage error={inbox.error ?? actionError} />
      <p class="notice" role="status">
        {notice}
      </p>
      {(mayAdd || (editing && mayUpdate)) && (
        <NotificationForm
          key={editing ? `${editing.id}:${editing.version}` : 'new'}
          editing={editing}
          onDone={(message) => {
            setNotice(message);
            setEditing(undefined);
            void refresh();
          }}
          onCancel={() => setEditing(undefined)}
        />
      )}
      <h2>Inbox</h2>
      {inbox.data && inbox.data.total === 0 && <p>No notifications.</p>}
      {inbox.data && inbox.data.items.length > 0 && (
        <table class="grid" aria-label="Inbox">
          <thead>
            <tr>
              <th scope="col">Subject</th>
              <th scope="col">Message</th>
              <th scope="col">Priority</th>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Date</th>
              {(mayUpdate || mayDelete) && (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {inbox.data.items.map((n) => (
              <tr key={n.id}>
                <td>{n.subject}</td>
                <td class="message">{n.message}</td>
                <td>{PRIORITY_LABEL[n.priority] ?? n.priority}</td>
                <td>{n.originator}</td>
                <td>
                  {n.recipientsType}: {n.recipients.join(', ')}
                </td>
                <td>
                  <time dateTime={n.date}>{when.format(new Date(n.date))}</time>
                </td>
                {(mayUpdate || mayDelete) && (
                  <td class="row-actions">
                    {mayUpdate && (
                      <button type="button" aria-label={`Edit ${n.subject}`} onClick={() => setEditing(n)}>
                        Edit
                      </button>
                    )}
                    {mayDelete && (
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Delete ${n.subject}`}
                        onClick={() => setConfirm(n)}
                      >
                        Delete
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {inbox.data && (
        <Pager
          start={start}
          limit={limit}
          total={inbox.data.total}
          shown={{ start: inbox.data.shownStart, count: inbox.data.items.length }}
          onStart={setStart}
          onLimit={(l) => {
            setLimit(l);
            setStart(0);
          }}
        />
      )}
      <ConfirmDialog
        question={confirm ? `Delete the notification “${confirm.subject}” for all its recipients?` : undefined}
        confirmLabel="Delete"
        onConfirm={() => confirm && remove(confirm)}
        onCancel={() => setConfirm(undefined)}
      />
    </>
  );
}

interface FormProps {
  editing: Notification | undefined;
  onDone: (message: string) => void;
  onCancel: () => void;
}

/** Send (or, with `editing`, change) a notification. Recipients: one per line or comma-separated. */
function NotificationForm({ editing, onDone, onCancel }: FormProps) {
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  // Controlled fields (Preact applies no defaultValue to a select).
  const [subject, setSubject] = useState(editing?.subject ?? '');
  const [message, setMessage] = useState(editing?.message ?? '');
  const [recipientsType, setRecipientsType] = useState<RecipientsType>(editing?.recipientsType ?? 'user');
  const [priority, setPriority] = useState<Priority>(editing?.priority ?? 5);
  const [recipients, setRecipients] = useState(editing?.recipients.join('\n') ?? '');

  const submit = async (event: Event) => {
    event.preventDefault();
    const body: NotificationWrite = {
      subject: subject.trim(),
      message: message.trim(),
      priority,
      recipientsType,
      recipients: recipients
        .split(/[\n,]/)
        .map((r) => r.trim())
        .filter(Boolean),
    };
    setBusy(true);
    setError(undefined);
    try {
      if (editing) {
        await adminApi.updateNotification(editing.id, body);
        onDone(`Updated “${body.subject}”.`);
      } else {
        await adminApi.addNotification(body);
        setSubject('');
        setMessage('');
        setRecipients('');
        onDone(`Sent “${body.subject}”.`);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const text = (set: (v: string) => void) => (e: Event) => set((e.currentTarget as HTMLInputElement).value);
  const heading = editing ? `Edit notification “${editing.subject}”` : 'Send a notification';
  return (
    <form class="panel-form" aria-labelledby="notification-form-heading" onSubmit={submit}>
      <h2 id="notification-form-heading">{heading}</h2>
      <ErrorMessage error={error} />
      <label>
        Subject
        <input name="subject" required maxLength={1000} value={subject} onInput={text(setSubject)} />
      </label>
      <label>
        Message
        <textarea name="message" required rows={3} maxLength={100_000} value={message} onInput={text(setMessage)} />
      </label>
      <div class="form-row">
        <label>
          Recipients are
          <select
            name="recipientsType"
            value={recipientsType}
            onChange={(e) => setRecipientsType(e.currentTarget.value as RecipientsType)}
          >
            <option value="user">Users</option>
            <option value="role">Roles</option>
            <option value="organisation">Organisations</option>
          </select>
        </label>
        <label>
          Priority
          <select
            name="priority"
            value={String(priority)}
            onChange={(e) => setPriority(Number(e.currentTarget.value) as Priority)}
          >
            <option value="0">Low</option>
            <option value="5">Normal</option>
            <option value="10">High</option>
          </select>
        </label>
      </div>
      <label>
        Recipients
        <textarea
          name="recipients"
          required
          rows={2}
          aria-describedby="recipients-hint"
          value={recipients}
          onInput={text(setRecipients)}
        />
      </label>
      <p id="recipients-hint" class="hint">
        Login names, role names or organisation names: one per line or separated by commas.
      </p>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {editing ? 'Save notification' : 'Send notification'}
        </button>
        {editing && (
          <button type="button" onClick={onCancel}>
            Cancel editing
          </button>
        )}
      </div>
    </form>
  );
}

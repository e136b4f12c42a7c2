import { useEffect, useRef, useState } from 'preact/hooks';
import type { ItemWrite, StoreItem } from '../api';
import { ErrorMessage } from './error-message';
import { JsonEditor } from './json-editor';
import {
  emptyRestriction,
  fromDraft,
  isEmptyRestriction,
  type RestrictionDraft,
  RestrictionsEditor,
  toDraft,
} from './restrictions-editor';

export type EditorTarget = { mode: 'create' } | { mode: 'edit'; item: StoreItem };

interface Props {
  target: EditorTarget | undefined;
  /** Sends the item; rejects with the API's error, which the dialog shows. */
  onSave: (itemId: string | undefined, item: ItemWrite) => Promise<void>;
  onClose: () => void;
}

/** The JSON text's syntax error as the user reads it, or undefined for valid JSON. */
function syntaxError(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Creates or edits one item: its id, name, JSON value and both restrictions. Nothing is sent while the JSON is wrong. */
export function ItemEditor({ target, onSave, onClose }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const [itemId, setItemId] = useState('');
  const [name, setName] = useState('');
  const [value, setValue] = useState('{}');
  const [read, setRead] = useState<RestrictionDraft>(emptyRestriction);
  const [write, setWrite] = useState<RestrictionDraft>(emptyRestriction);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!target) {
      if (dialog.open) dialog.close();
      return;
    }
    const item = target.mode === 'edit' ? target.item : undefined;
    setItemId(item?.id ?? '');
    setName(item?.name ?? '');
    setValue(item ? JSON.stringify(item.value, null, 2) : '{\n  \n}');
    setRead(toDraft(item?.readRestriction));
    setWrite(toDraft(item?.writeRestriction));
    setError(undefined);
    setBusy(false);
    if (!dialog.open) dialog.showModal();
  }, [target]);

  const jsonError = syntaxError(value);
  const save = async (event: Event) => {
    event.preventDefault();
    if (jsonError) return;
    const readRestriction = fromDraft(read);
    const writeRestriction = fromDraft(write);
    if (isEmptyRestriction(readRestriction) || isEmptyRestriction(writeRestriction)) {
      setError(new Error('Both restrictions need a user, an organisation, a role or a right.'));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await onSave(itemId.trim() || undefined, {
        name: name.trim() || null,
        value: JSON.parse(value),
        readRestriction,
        writeRestriction,
      });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const editing = target?.mode === 'edit';
  const title = editing ? `Edit item ${itemId}` : 'New item';
  return (
    <dialog ref={ref} class="editor" aria-labelledby="item-editor-title" onClose={() => target && onClose()}>
      {target && (
        <form onSubmit={save} noValidate>
          <h2 id="item-editor-title">{title}</h2>
          <label>
            Item id
            <input
              value={itemId}
              readOnly={editing}
              placeholder={editing ? undefined : 'empty: a new random id'}
              pattern="[A-Za-z0-9._\-]{1,100}"
              onInput={(e) => setItemId(e.currentTarget.value)}
            />
          </label>
          <label>
            Name
            <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <div class="field">
            <span class="label" id="item-value-label">
              Value (JSON)
            </span>
            <JsonEditor
              id="item-value"
              label="Value"
              value={value}
              onChange={setValue}
              describedBy={jsonError ? 'item-value-error' : undefined}
            />
            {jsonError && (
              <p id="item-value-error" class="error" role="alert">
                JSON syntax error: {jsonError}
              </p>
            )}
          </div>
          <div class="restrictions">
            <RestrictionsEditor legend="Read restriction" value={read} onChange={setRead} />
            <RestrictionsEditor legend="Write restriction" value={write} onChange={setWrite} />
          </div>
          <ErrorMessage error={error} />
          <div class="actions">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" class="primary" disabled={busy || !!jsonError}>
              {editing ? 'Save' : 'Create'}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

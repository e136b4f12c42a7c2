import { useEffect, useRef } from 'preact/hooks';

interface Props {
  /** Shown while set: the question. */
  question: string | undefined;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/** A modal question (the native dialog: focus kept inside, Escape cancels), for deletes. */
export function ConfirmDialog({ question, confirmLabel, onConfirm, onCancel }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (question && !dialog.open) dialog.showModal();
    if (!question && dialog.open) dialog.close();
  }, [question]);
  return (
    <dialog ref={ref} aria-labelledby="confirm-question" onCancel={onCancel} onClose={() => question && onCancel()}>
      <p id="confirm-question">{question}</p>
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

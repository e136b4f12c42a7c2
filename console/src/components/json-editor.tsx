import { useEffect, useRef } from 'preact/hooks';

interface Props {
  id: string;
  label: string;
  value: string;
  onChange: (text: string) => void;
  /** The id of the element describing the current syntax error, if any. */
  describedBy?: string;
}

/**
 * A JSON text field that becomes a CodeMirror 6 editor (syntax colours, brackets, error marks) once its code has
 * loaded: the editor is a chunk of its own, fetched the first time an item is edited, so the login and list pages
 * never carry it. Until then (or without it) a plain text area holds the same text.
 */
export function JsonEditor({ id, label, value, onChange, describedBy }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const fallback = useRef<HTMLTextAreaElement>(null);
  const view = useRef<{ destroy(): void; setText(text: string): void; text(): string } | undefined>(undefined);
  const latest = useRef(onChange);
  latest.current = onChange;

  useEffect(() => {
    let cancelled = false;
    import('./json-editor-view').then(({ mountJsonEditor }) => {
      if (cancelled || !host.current) return;
      const start = fallback.current?.value ?? value;
      view.current = mountJsonEditor(host.current, start, label, (text) => latest.current(text), describedBy);
      if (fallback.current) fallback.current.hidden = true;
    });
    return () => {
      cancelled = true;
      view.current?.destroy();
      view.current = undefined;
    };
    // The editor is made once per field; later values arrive through setText below.
  }, []);

  useEffect(() => {
    if (view.current && view.current.text() !== value) view.current.setText(value);
  }, [value]);

  return (
    <div class="json-editor">
      <textarea
        ref={fallback}
        id={id}
        aria-label={label}
        aria-describedby={describedBy}
        spellcheck={false}
        rows={10}
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      <div ref={host} />
    </div>
  );
}

// CodeMirror 6 with JSON: loaded lazily by json-editor.tsx (its own chunk).
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { linter } from '@codemirror/lint';
import { EditorView, basicSetup } from 'codemirror';

export function mountJsonEditor(
  parent: HTMLElement,
  text: string,
  label: string,
  onChange: (text: string) => void,
  describedBy?: string,
) {
  const attributes: Record<string, string> = { 'aria-label': label, 'aria-multiline': 'true' };
  if (describedBy) attributes['aria-describedby'] = describedBy;
  const view = new EditorView({
    doc: text,
    parent,
    extensions: [
      basicSetup,
      json(),
      linter(jsonParseLinter()),
      EditorView.contentAttributes.of(attributes),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onChange(update.state.doc.toString());
      }),
    ],
  });
  return {
    destroy: () => view.destroy(),
    text: () => view.state.doc.toString(),
    setText: (next: string) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } }),
  };
}

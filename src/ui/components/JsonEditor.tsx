import { useEffect, useEffectEvent, useRef } from 'react';
import { EditorState } from '@codemirror/state';
import { EditorView, lineNumbers, highlightActiveLine, keymap } from '@codemirror/view';
import { foldGutter, foldKeymap, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';

/**
 * CodeMirror 6 for JSON: folding, search (Ctrl-F), line numbers. Read-only unless given
 * `onChange` (then an editor with undo; Tab indents, Escape then Tab leaves it). Loaded
 * only when a page shows JSON.
 */
export default function JsonEditor({ text, label, maxHeight, onChange }: { text: string; label: string; maxHeight: number; onChange?: (text: string) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const editable = onChange !== undefined;
  // An editor keeps its own text while typing: only a read-only view is rebuilt on a new `text`
  // (an editor takes one from outside in the effect below). The latest `onChange` and `text`
  // are read when needed, not dependencies of the editor.
  const readOnlyText = editable ? null : text;
  const currentText = useEffectEvent(() => text);
  const changed = useEffectEvent((doc: string) => onChange?.(doc));

  useEffect(() => {
    const created = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: readOnlyText ?? currentText(),
        extensions: [
          lineNumbers(),
          foldGutter(),
          highlightActiveLine(),
          highlightSelectionMatches(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          json(),
          ...(editable
            ? [history(), keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]), EditorView.updateListener.of((u) => u.docChanged && changed(u.state.doc.toString()))]
            : [EditorState.readOnly.of(true)]),
          keymap.of([...foldKeymap, ...searchKeymap]),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.theme({ '&': { maxHeight: `${maxHeight}px` }, '.cm-scroller': { overflow: 'auto', fontFamily: 'var(--mantine-font-family-monospace)' } }),
        ],
      }),
    });
    view.current = created;
    return () => created.destroy();
  }, [editable, readOnlyText, label, maxHeight]);

  // A new text from outside (another version loaded) replaces the editor's.
  useEffect(() => {
    const v = view.current;
    if (editable && v && v.state.doc.toString() !== text) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
  }, [editable, text]);

  return <div ref={host} className="json-view" />;
}

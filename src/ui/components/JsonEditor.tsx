import { useEffect, useRef } from 'react';
import { EditorState } from '@codemirror/state';
import { EditorView, lineNumbers, highlightActiveLine, keymap } from '@codemirror/view';
import { foldGutter, foldKeymap, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { json } from '@codemirror/lang-json';

/** Read-only CodeMirror 6 for JSON: folding, search (Ctrl-F), line numbers. Loaded only when a page shows JSON. */
export default function JsonEditor({ text, label, maxHeight }: { text: string; label: string; maxHeight: number }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const view = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: text,
        extensions: [
          lineNumbers(),
          foldGutter(),
          highlightActiveLine(),
          highlightSelectionMatches(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          json(),
          keymap.of([...foldKeymap, ...searchKeymap]),
          EditorState.readOnly.of(true),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.theme({ '&': { maxHeight: `${maxHeight}px` }, '.cm-scroller': { overflow: 'auto', fontFamily: 'var(--mantine-font-family-monospace)' } }),
        ],
      }),
    });
    return () => view.destroy();
  }, [text, label, maxHeight]);
  return <div ref={host} className="json-view" />;
}

import type { ReactNode } from 'react';

/** A table's white box that scrolls sideways on a narrow screen: a named region the keyboard can scroll. */
export function ScrollPanel({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="panel" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

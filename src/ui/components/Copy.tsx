import { ActionIcon, CopyButton, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

export function Copy({ value, label = 'Copy' }: { value: string; label?: string }) {
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : label} withArrow>
          <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray'} onClick={copy} aria-label={label} size="sm">
            {copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

/** A block of code with a copy button in its corner. */
export function Snippet({ code, label }: { code: string; label: string }) {
  return (
    <div style={{ position: 'relative' }}>
      <pre className="mono" tabIndex={0} aria-label={label} style={{ margin: 0, padding: '10px 36px 10px 12px', background: '#1e2130', color: '#e9ecef', borderRadius: 6, fontSize: 12, overflowX: 'auto' }}>
        <code>{code}</code>
      </pre>
      <div style={{ position: 'absolute', top: 6, right: 6, background: '#fff', borderRadius: 4 }}>
        <Copy value={code} label={`Copy ${label}`} />
      </div>
    </div>
  );
}

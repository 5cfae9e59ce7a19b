import type { ReactNode } from 'react';
import { Alert, Button, Code, Group, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconLock } from '@tabler/icons-react';
import { ApiError } from '../api/client.ts';
import { fieldError } from '../lib/form-errors.ts';
import { useSession } from '../api/session.ts';
import { asText, formatShortDateTime } from '../lib/format.ts';
import { Copy } from './Copy.tsx';
import { DialogActions } from './DialogActions.tsx';

/** One block of a settings page: a heading, what it is for, its content. */
export function Section({ title, description, actions, children }: { title: string; description?: ReactNode; actions?: ReactNode; children: ReactNode }) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label={title}>
      {/* The actions go under the title when both do not fit (a phone), never cut off. */}
      <Group justify="space-between" align="flex-start" mb="sm" wrap="wrap" gap="xs">
        <div style={{ flex: '1 1 220px', minWidth: 0 }}>
          <Title order={2} size="h4">
            {title}
          </Title>
          {description && (
            <Text size="sm" className="muted" mt={2}>
              {description}
            </Text>
          )}
        </div>
        {actions}
      </Group>
      {children}
    </Paper>
  );
}

/** Light alerts' coloured titles miss WCAG AA contrast on their tinted background: titles in text colour. */
const READABLE = { title: 'alert-title' };

/** An API failure, a 403 said plainly: what the role may not do, in the server's words. */
export function ApiErrorAlert({ error, title, shownAt = [] }: { error: unknown; title?: string; shownAt?: string[] }) {
  const { data: session } = useSession();
  if (!error) return null;
  // Said next to its field already (fieldError): not twice.
  if (shownAt.length && fieldError(error, ...shownAt)) return null;
  if (error instanceof ApiError && error.status === 403) {
    return (
      <Alert color="orange" icon={<IconLock size={16} />} title={title ?? 'Not allowed'} role="alert" classNames={READABLE}>
        Your role in {session?.organization.name ?? 'this organization'} ({session?.role.toLowerCase() ?? 'unknown'}) does not allow this. The server said: {error.message}
      </Alert>
    );
  }
  return (
    <Alert color="red" icon={<IconAlertTriangle size={16} />} title={title ?? 'Something went wrong'} role="alert" classNames={READABLE}>
      {error instanceof Error ? error.message : asText(error)}
    </Alert>
  );
}

/** A secret the server answers once (a token, a signing secret, a link): copy it now. */
export function ShownOnce({ label, value, children }: { label: string; value: string; children?: ReactNode }) {
  return (
    <Alert color="teal" title={`${label} — shown once`} data-testid="shown-once" classNames={READABLE}>
      <Stack gap={6}>
        <Text size="sm">Copy it now: it is not shown again.{children ? ' ' : ''}{children}</Text>
        <Group gap={6} wrap="nowrap">
          <Code className="mono" style={{ overflowWrap: 'anywhere', fontSize: 12, padding: '6px 8px', flex: 1 }} aria-label={label} data-testid="secret-value">
            {value}
          </Code>
          <Copy value={value} label={`Copy ${label.toLowerCase()}`} />
        </Group>
      </Stack>
    </Alert>
  );
}

/** What the page offers this role, when it offers less than everything. */
export function RoleNote({ children }: { children: ReactNode }) {
  return (
    <Alert color="gray" variant="light" icon={<IconLock size={16} />}>
      {children}
    </Alert>
  );
}

export const shortDate = (iso: string | null | undefined) => (iso ? formatShortDateTime(iso) : '–');

interface ConfirmActionProps<T> {
  /** What the action is about; the dialog is open while it is set. */
  target: T | null;
  title: (target: T) => string;
  /** What happens, said before it does. */
  children: ReactNode;
  confirmLabel: string;
  color?: 'red' | 'orange';
  pending: boolean;
  error: unknown;
  errorTitle?: string;
  onClose: () => void;
  /** Runs the action; the dialog closes when it succeeds and shows the server's refusal when it fails. */
  onConfirm: (target: T) => Promise<unknown>;
}

/** A confirmation before an action that cannot be undone (revoke, remove, delete, rotate). */
export function ConfirmAction<T>({ target, title, children, confirmLabel, color = 'red', pending, error, errorTitle, onClose, onConfirm }: ConfirmActionProps<T>) {
  return (
    <Modal opened={target !== null} onClose={onClose} title={target !== null ? title(target) : ''}>
      <Stack gap="sm">
        <Text size="sm">{children}</Text>
        <ApiErrorAlert error={error} title={errorTitle} />
        <DialogActions onClose={onClose}>
          <Button color={color} loading={pending} onClick={() => target !== null && void onConfirm(target).then(onClose).catch(() => undefined)}>
            {confirmLabel}
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
}

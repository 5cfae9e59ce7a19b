import { useCallback, useState } from 'react';
import { Alert, Button, Checkbox, Group, Modal, Stack, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowLeft, IconLink, IconLinkOff, IconShare } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { can, useSession } from '../api/session.ts';
import { useShareMutation, useShareState, useTraceOutline, type ShareOptions } from '../api/traces.ts';
import { Copy } from '../components/Copy.tsx';
import { TraceView } from '../components/TraceView.tsx';
import { AddToDatasetButton } from '../components/AddToDataset.tsx';
import { Loading } from '../components/QueryState.tsx';

export default function TracePage() {
  const { projectId, traceId } = useParams({ from: '/p/$projectId/traces/$traceId' });
  const { span } = useSearch({ from: '/p/$projectId/traces/$traceId' });
  const navigate = useNavigate({ from: '/p/$projectId/traces/$traceId' });
  const detail = useTraceOutline({ projectId, traceId });
  // The selection answers at once; the URL follows (a router navigation takes a few frames,
  // and a jump through a 10,000-span tree should not wait for it). A URL change this page did
  // not make (Back, a link) moves the selection too.
  const [selected, setSelected] = useState<{ span: string | null; url: string | undefined; pending: string[] }>({ span: span ?? null, url: span, pending: [] });
  if (selected.url !== span) {
    const at = span === undefined ? -1 : selected.pending.indexOf(span);
    setSelected(at >= 0 ? { span: selected.span, url: span, pending: selected.pending.slice(at + 1) } : { span: span ?? null, url: span, pending: [] });
  }
  const selectSpan = useCallback(
    (id: string) => {
      setSelected((s) => ({ ...s, span: id, pending: [...s.pending, id].slice(-50) }));
      void navigate({ search: { span: id }, replace: true });
    },
    [navigate],
  );

  const back = (
    <Link to="/p/$projectId/traces" params={{ projectId }} className="back-link">
      <IconArrowLeft size={14} aria-hidden /> Traces
    </Link>
  );
  if (detail.isPending) {
    return <Loading label="Loading the trace" />;
  }
  if (detail.isError) {
    return (
      <div style={{ padding: 16 }}>
        {back}
        <Alert color={'status' in detail.error && detail.error.status === 404 ? 'gray' : 'red'} title="This trace cannot be shown" mt="sm">
          {'status' in detail.error && detail.error.status === 404 ? `No trace ${traceId} in this project (yet).` : detail.error.message}
        </Alert>
      </div>
    );
  }
  return (
    <TraceView
      trace={detail.data}
      source={{ projectId, traceId }}
      selectedSpanId={selected.span}
      onSelectSpan={selectSpan}
      project={{
        id: projectId,
        threadLink: (thread) => (
          <Link to="/p/$projectId/threads/$threadId" params={{ projectId, threadId: thread }} title="The thread as a conversation, turn by turn" data-testid="thread-link">
            {thread}
          </Link>
        ),
        userLink: (user) => (
          <Link to="/p/$projectId/traces" params={{ projectId }} search={{ user }} title="Every trace of this user">
            {user}
          </Link>
        ),
      }}
      actions={
        <Group gap="sm">
          {back}
          <ShareControl projectId={projectId} traceId={traceId} />
          <AddToDatasetButton projectId={projectId} source={{ kind: 'items', items: [{ traceId }], label: `This trace (${traceId}): its input and output.` }} />
        </Group>
      }
      spanActions={(spanId) => (
        <AddToDatasetButton projectId={projectId} source={{ kind: 'items', items: [{ traceId, spanId }], label: `This span (${spanId}): its own input and output.` }} size="compact-sm" />
      )}
    />
  );
}

/** The share dialog's choices: what a visitor of the public link does not see (default: the end user). */
const DEFAULT_SHARE: ShareOptions = { hide_user: true, hide_metadata: false, hide_span_attributes: false };

/**
 * Share asks what to hide (the end user by default, the metadata, the span attributes) and
 * says what a visitor will see, then makes the trace public and copies the link; Options
 * changes the choice later; Unshare withdraws it.
 */
function ShareControl({ projectId, traceId }: { projectId: string; traceId: string }) {
  const { data: session } = useSession();
  const allowed = can(session, 'traces:share');
  const state = useShareState(projectId, traceId);
  const mutation = useShareMutation(projectId, traceId);
  const [choosing, setChoosing] = useState(false);
  const url = state.data?.path ? `${window.location.origin}${state.data.path}` : null;

  const share = async (options: ShareOptions) => {
    const wasShared = !!state.data?.shared;
    const next = await mutation.mutateAsync(options);
    setChoosing(false);
    if (wasShared) {
      notifications.show({ message: 'The public link now shows what you chose', color: 'teal' });
      return;
    }
    const link = `${window.location.origin}${next.path}`;
    try {
      await navigator.clipboard.writeText(link);
      notifications.show({ message: 'Public link copied', color: 'teal' });
    } catch {
      notifications.show({ message: `Shared: ${link}` });
    }
  };

  if (!state.data) return null;
  const dialog = choosing && (
    <ShareDialog shared={state.data.shared} initial={state.data.options ?? DEFAULT_SHARE} pending={mutation.isPending} error={mutation.error} onCancel={() => setChoosing(false)} onShare={(o) => void share(o).catch(() => undefined)} />
  );
  if (!state.data.shared) {
    return (
      <>
        <Tooltip label="Your role cannot share traces" disabled={allowed}>
          <Button size="xs" variant="default" leftSection={<IconShare size={14} />} onClick={() => setChoosing(true)} disabled={!allowed}>
            Share
          </Button>
        </Tooltip>
        {dialog}
      </>
    );
  }
  return (
    <Group gap={6} wrap="wrap" data-testid="share-state">
      <Text size="xs" c="teal.9" fw={600} style={{ display: 'inline-flex', gap: 4, alignItems: 'center' }}>
        <IconLink size={14} aria-hidden /> Public
      </Text>
      <a href={url!} target="_blank" rel="noreferrer" style={{ fontSize: 12, maxWidth: 220 }} className="ellipsis" data-testid="share-link">
        {url}
      </a>
      <Copy value={url!} label="Copy public link" />
      {allowed && (
        <Button size="xs" variant="default" onClick={() => setChoosing(true)}>
          What it shows
        </Button>
      )}
      {allowed && (
        <Button size="xs" variant="default" color="red" leftSection={<IconLinkOff size={14} />} onClick={() => mutation.mutate(false)} loading={mutation.isPending}>
          Unshare
        </Button>
      )}
      {dialog}
    </Group>
  );
}

function ShareDialog({ shared, initial, pending, error, onCancel, onShare }: { shared: boolean; initial: ShareOptions; pending: boolean; error: Error | null; onCancel: () => void; onShare: (o: ShareOptions) => void }) {
  const [o, setO] = useState<ShareOptions>(initial);
  const shown = ['the input and output', 'every span with its input, output, timings, tokens, cost and errors', 'evaluations'];
  const hidden: string[] = [];
  (o.hide_user ? hidden : shown).push('the user (id or e-mail)');
  (o.hide_metadata ? hidden : shown).push('the metadata (labels, thread, customer, your own keys)');
  (o.hide_span_attributes ? hidden : shown).push('the span attributes');
  return (
    <Modal opened onClose={onCancel} title={shared ? 'What the public link shows' : 'Share this trace'}>
      <Stack gap="sm">
        <Text size="sm">Anyone with the link sees this trace, without signing in, until you unshare it.</Text>
        <Checkbox label="Hide the user" description="The end user's id or e-mail, from the trace and its spans" checked={o.hide_user} onChange={(e) => setO({ ...o, hide_user: e.currentTarget.checked })} />
        <Checkbox label="Hide the metadata" description="Labels, thread, customer and your own metadata keys" checked={o.hide_metadata} onChange={(e) => setO({ ...o, hide_metadata: e.currentTarget.checked })} />
        <Checkbox label="Hide the span attributes" description="Every span's attributes and resource attributes" checked={o.hide_span_attributes} onChange={(e) => setO({ ...o, hide_span_attributes: e.currentTarget.checked })} />
        <div data-testid="share-preview">
          <Text size="sm" fw={600}>
            A visitor will see
          </Text>
          <Text size="sm">{shown.join('; ')}.</Text>
          {hidden.length > 0 && (
            <Text size="sm" mt={4}>
              <b>Hidden:</b> {hidden.join('; ')}.
            </Text>
          )}
        </div>
        {error && <Alert color="red">{error.message}</Alert>}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button leftSection={<IconShare size={14} />} loading={pending} onClick={() => onShare(o)}>
            {shared ? 'Save' : 'Share and copy the link'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

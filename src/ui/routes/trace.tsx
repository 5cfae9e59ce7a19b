import { Alert, Button, Group, Loader, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowLeft, IconLink, IconLinkOff, IconShare } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { can, useSession } from '../api/session.ts';
import { useShareMutation, useShareState, useTraceOutline } from '../api/traces.ts';
import { Copy } from '../components/Copy.tsx';
import { TraceView } from '../components/TraceView.tsx';

export default function TracePage() {
  const { projectId, traceId } = useParams({ from: '/p/$projectId/traces/$traceId' });
  const { span } = useSearch({ from: '/p/$projectId/traces/$traceId' });
  const navigate = useNavigate({ from: '/p/$projectId/traces/$traceId' });
  const detail = useTraceOutline({ projectId, traceId });

  const back = (
    <Link to="/p/$projectId/traces" params={{ projectId }} className="back-link">
      <IconArrowLeft size={14} aria-hidden /> Traces
    </Link>
  );
  if (detail.isPending) {
    return (
      <Group justify="center" p="xl">
        <Loader size="sm" aria-label="Loading the trace" />
      </Group>
    );
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
      selectedSpanId={span ?? null}
      onSelectSpan={(id) => void navigate({ search: { span: id }, replace: true })}
      project={{
        id: projectId,
        threadLink: (thread) => (
          <Link to="/p/$projectId/traces" params={{ projectId }} search={{ thread }} title="Every trace of this thread">
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
        </Group>
      }
    />
  );
}

/** Share makes the trace public and copies the link; Unshare withdraws it. */
function ShareControl({ projectId, traceId }: { projectId: string; traceId: string }) {
  const { data: session } = useSession();
  const allowed = can(session, 'traces:share');
  const state = useShareState(projectId, traceId);
  const mutation = useShareMutation(projectId, traceId);
  const url = state.data?.path ? `${window.location.origin}${state.data.path}` : null;

  const share = async () => {
    const next = await mutation.mutateAsync(true);
    const link = `${window.location.origin}${next.path}`;
    try {
      await navigator.clipboard.writeText(link);
      notifications.show({ message: 'Public link copied', color: 'teal' });
    } catch {
      notifications.show({ message: `Shared: ${link}` });
    }
  };

  if (!state.data) return null;
  if (!state.data.shared) {
    return (
      <Tooltip label="Your role cannot share traces" disabled={allowed}>
        <Button size="xs" variant="default" leftSection={<IconShare size={14} />} onClick={() => void share()} loading={mutation.isPending} disabled={!allowed}>
          Share
        </Button>
      </Tooltip>
    );
  }
  return (
    <Group gap={6} wrap="nowrap" data-testid="share-state">
      <Text size="xs" c="teal.9" fw={600} style={{ display: 'inline-flex', gap: 4, alignItems: 'center' }}>
        <IconLink size={14} aria-hidden /> Public
      </Text>
      <a href={url!} target="_blank" rel="noreferrer" style={{ fontSize: 12, maxWidth: 220 }} className="ellipsis" data-testid="share-link">
        {url}
      </a>
      <Copy value={url!} label="Copy public link" />
      {allowed && (
        <Button size="xs" variant="default" color="red" leftSection={<IconLinkOff size={14} />} onClick={() => mutation.mutate(false)} loading={mutation.isPending}>
          Unshare
        </Button>
      )}
    </Group>
  );
}

import { useEffect, useState } from 'react';
import { Text } from '@mantine/core';
import { IconTelescope } from '@tabler/icons-react';
import { useParams } from '@tanstack/react-router';
import { ApiError } from '../api/client.ts';
import { useTraceOutline } from '../api/traces.ts';
import { TraceView } from '../components/TraceView.tsx';
import { Loading } from '../components/QueryState.tsx';

/** The public, read-only page of a shared trace: no sign-in, and no link into the project. */
export default function SharePage() {
  const { token } = useParams({ from: '/share/$token' });
  const detail = useTraceOutline({ shareToken: token });
  const [span, setSpan] = useState<string | null>(null);
  // Shared before its spans arrived: look again every few seconds.
  const pending = detail.error instanceof ApiError && detail.error.code === 'trace_not_available_yet';
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => void detail.refetch(), 3000);
    return () => clearInterval(timer);
  }, [pending, detail]);
  return (
    <div className="shell">
      <header className="shell-header">
        <span className="shell-brand">
          <IconTelescope size={20} aria-hidden /> Spyglass
        </span>
        <Text size="sm" c="#ced4da">
          Shared trace · read-only
        </Text>
      </header>
      <main className="shell-main">
        {detail.isPending ? (
          <Loading label="Loading the trace" />
        ) : pending ? (
          <div className="center-page">
            <h1 style={{ fontSize: 22 }}>Shared trace not available yet</h1>
            <Text className="muted">Its spans have not arrived. This page shows it as soon as they do.</Text>
          </div>
        ) : detail.isError ? (
          <div className="center-page">
            <h1 style={{ fontSize: 22 }}>Shared trace not found</h1>
            <Text className="muted">The link is wrong, or its owner no longer shares this trace.</Text>
          </div>
        ) : (
          <TraceView trace={detail.data} source={{ shareToken: token }} selectedSpanId={span} onSelectSpan={setSpan} />
        )}
      </main>
    </div>
  );
}

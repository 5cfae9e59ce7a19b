import { Alert, Button, Group, Loader, Text, Title, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconArrowLeft, IconExternalLink, IconThumbDown, IconThumbUp } from '@tabler/icons-react';
import { Link, useParams } from '@tanstack/react-router';
import { useThreadTraces } from '../api/traces.ts';
import { useThreadEvaluations, type ThreadEvaluation } from '../api/threads.ts';
import { ThreadScoreChip } from '../components/ThreadScoreChip.tsx';
import type { TraceSummary } from '../api/traces.ts';
import { Copy } from '../components/Copy.tsx';
import { Metric } from '../components/TraceView.tsx';
import { formatCost, formatDuration, formatFullTime, formatTime, formatTokens } from '../lib/format.ts';

const PAGE_SIZE = 50;

/**
 * A thread (the traces sharing a thread id) replayed as the conversation it was: each trace
 * a turn, the user's input and the answer, with the turn's latency, cost, errors and scores,
 * linked to its trace. Read through the trace search (filtered by thread, oldest first), a
 * page of turns at a time.
 */
export default function ThreadPage() {
  const { projectId, threadId } = useParams({ from: '/p/$projectId/threads/$threadId' });
  const pages = useThreadTraces(projectId, threadId, PAGE_SIZE);
  const evaluations = useThreadEvaluations(projectId, threadId);
  // Each monitor's newest result marks the last turn it covered.
  const newest = newestPerMonitor(evaluations.data ?? []);
  const turns = pages.data?.pages.flatMap((p) => p.traces) ?? [];
  const total = pages.data?.pages[0]?.pagination.totalHits ?? 0;
  const sum = (f: (t: TraceSummary) => number | null | undefined) => turns.reduce((a, t) => a + (f(t) ?? 0), 0);
  const errors = turns.filter((t) => t.error).length;
  const all = !pages.hasNextPage;

  return (
    <div className="page thread-page">
      <Group gap="md" wrap="wrap">
        <Link to="/p/$projectId/threads" params={{ projectId }} className="back-link">
          <IconArrowLeft size={14} aria-hidden /> Threads
        </Link>
        <Link to="/p/$projectId/traces" params={{ projectId }} search={{ thread: threadId }} className="back-link">
          Traces of this thread
        </Link>
      </Group>
      <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
        <Title order={1} size="h4" className="ellipsis mono" title={threadId}>
          Thread {threadId}
        </Title>
        <Copy value={threadId} label="Copy thread id" />
      </Group>
      {pages.isSuccess && turns.length > 0 && (
        <Group gap="xl" wrap="wrap" style={{ rowGap: 6 }} data-testid="thread-metrics">
          <Metric label="Turns">{total.toLocaleString()}</Metric>
          <Metric label="Started">{formatFullTime(turns[0].timestamps.started_at)}</Metric>
          <Metric label={all ? 'Cost' : `Cost (first ${turns.length})`}>{formatCost(sum((t) => t.metrics.total_cost))}</Metric>
          <Metric label={all ? 'Time answering' : `Time answering (first ${turns.length})`}>{formatDuration(sum((t) => t.metrics.total_time_ms))}</Metric>
          <Metric label="Errors">{errors.toLocaleString()}</Metric>
          {typeof turns[0].metadata.user_id === 'string' && (
            <Metric label="User">
              <Link to="/p/$projectId/traces" params={{ projectId }} search={{ user: turns[0].metadata.user_id }}>
                {turns[0].metadata.user_id}
              </Link>
            </Metric>
          )}
        </Group>
      )}
      {(evaluations.data?.length ?? 0) > 0 && <ThreadResults results={evaluations.data!} />}
      {pages.isError ? (
        <Alert color="red" title="The thread could not be loaded">
          {pages.error.message}
        </Alert>
      ) : pages.isPending ? (
        <Group justify="center" p="xl">
          <Loader size="sm" aria-label="Loading the thread" />
        </Group>
      ) : turns.length === 0 ? (
        <Alert color="gray" title="No traces in this thread (yet)">
          Traces join a thread by their thread id (metadata <span className="mono">thread_id</span>, or the langwatch.thread.id attribute).
        </Alert>
      ) : (
        <ol className="chat" aria-label="Conversation" data-testid="thread-turns">
          {turns.map((t, i) => (
            <Turn key={t.trace_id} trace={t} n={i + 1} projectId={projectId} covered={newest.filter((e) => e.covered.turns === i + 1)} />
          ))}
        </ol>
      )}
      {pages.hasNextPage && (
        <Group justify="center">
          <Button variant="default" size="sm" loading={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
            Show the next {Math.min(PAGE_SIZE, total - turns.length)} turns ({(total - turns.length).toLocaleString()} more)
          </Button>
        </Group>
      )}
    </div>
  );
}

/** The newest result of each thread monitor (the list is newest first). */
function newestPerMonitor(results: ThreadEvaluation[]): ThreadEvaluation[] {
  const seen = new Set<string>();
  return results.filter((r) => {
    const key = r.monitor_id ?? r.name;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The thread's evaluations as a whole, newest first: verdict, reasoning, and the turns each covered. */
function ThreadResults({ results }: { results: ThreadEvaluation[] }) {
  return (
    <section className="panel thread-results" aria-label="Thread evaluations" data-testid="thread-evaluations">
      <Text size="sm" fw={600} p="xs" pb={0}>
        Thread evaluations
      </Text>
      <ul className="thread-result-list">
        {results.map((r) => (
          <li key={r.id} data-evaluation-id={r.id}>
            <Group gap={8} wrap="wrap">
              <ThreadScoreChip score={{ ...r, turns: r.covered.turns }} />
              <Text size="xs" className="nowrap" data-testid="covered-turns">
                {r.covered.turns === 1 ? 'Turn 1' : `Turns 1–${r.covered.turns}`}
              </Text>
              <Text size="xs" className="muted nowrap" title={formatFullTime(r.inserted_at)}>
                {formatTime(r.inserted_at)}
              </Text>
            </Group>
            {r.details && (
              <Text size="sm" className="textblock" mt={2}>
                {r.details}
              </Text>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Turn({ trace: t, n, projectId, covered }: { trace: TraceSummary; n: number; projectId: string; covered: ThreadEvaluation[] }) {
  const m = t.metrics;
  const tokens = m.prompt_tokens === null && m.completion_tokens === null ? null : (m.prompt_tokens ?? 0) + (m.completion_tokens ?? 0);
  const evaluations = t.evaluations ?? [];
  const notes = t.annotations;
  return (
    <li className="turn" data-trace-id={t.trace_id} aria-label={`Turn ${n}`}>
      <div className="turn-head">
        <Text size="xs" fw={600} className="nowrap">
          Turn {n}
        </Text>
        <Text size="xs" className="muted nowrap" title={formatFullTime(t.timestamps.started_at)}>
          {formatTime(t.timestamps.started_at)}
        </Text>
        <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: t.trace_id }} className="turn-link" aria-label={`Open the trace of turn ${n}`}>
          <IconExternalLink size={13} aria-hidden /> Trace
        </Link>
      </div>
      <div className="bubble user">
        <Text size="xs" fw={600} className="bubble-role">
          User
        </Text>
        <div className="textblock">{t.input.value || <span className="muted">(no input)</span>}</div>
      </div>
      <div className={`bubble assistant${t.error ? ' failed' : ''}`}>
        <Text size="xs" fw={600} className="bubble-role">
          Assistant
        </Text>
        {t.output.value ? <div className="textblock">{t.output.value}</div> : !t.error && <span className="muted">(no output)</span>}
        {t.error && (
          <Text size="sm" c="#b02525" style={{ overflowWrap: 'anywhere' }}>
            <IconAlertTriangle size={13} aria-hidden style={{ verticalAlign: -2 }} /> {t.error.message}
          </Text>
        )}
      </div>
      <div className="turn-facts" data-testid="turn-facts">
        <span title="Latency">{formatDuration(m.total_time_ms)}</span>
        <span title="Cost">{formatCost(m.total_cost)}</span>
        {tokens !== null && <span title="Tokens">{`${m.tokens_estimated ? '~' : ''}${formatTokens(tokens)} tokens`}</span>}
        {t.error && <span className="score-chip fail">error</span>}
        {evaluations.map((e, i) => (
          <Tooltip key={`${e.name}-${i}`} label={`${e.name}: ${e.passed === true ? 'passed' : e.passed === false ? 'failed' : e.status}${e.score !== null ? ` (score ${e.score})` : ''}`}>
            <span className={`score-chip${e.passed === true ? ' pass' : e.passed === false ? ' fail' : ''}`} tabIndex={0}>
              {e.name}
              {e.score !== null ? ` ${Math.round(e.score * 100) / 100}` : ''}
              {e.passed === true ? ' ✓' : e.passed === false ? ' ✗' : ''}
            </span>
          </Tooltip>
        ))}
        {notes && notes.thumbs_up > 0 && (
          <span style={{ color: '#2b8a3e' }} title={`${notes.thumbs_up} thumbs up`}>
            <IconThumbUp size={13} aria-label="thumbs up" style={{ verticalAlign: -2 }} /> {notes.thumbs_up}
          </span>
        )}
        {notes && notes.thumbs_down > 0 && (
          <span style={{ color: '#c92a2a' }} title={`${notes.thumbs_down} thumbs down`}>
            <IconThumbDown size={13} aria-label="thumbs down" style={{ verticalAlign: -2 }} /> {notes.thumbs_down}
          </span>
        )}
      </div>
      {covered.length > 0 && (
        <div className="covered-mark" data-testid="covered-mark">
          <span className="muted">Evaluated through turn {n}:</span>
          {covered.map((e) => (
            <ThreadScoreChip key={e.id} score={{ ...e, turns: e.covered.turns }} />
          ))}
        </div>
      )}
    </li>
  );
}

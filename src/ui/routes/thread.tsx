import { Group, Text, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { Link, useParams } from '@tanstack/react-router';
import { useThreadTraces } from '../api/traces.ts';
import { useThreadEvaluations, useThreadReviews, type ThreadEvaluation, type ThreadReview } from '../api/threads.ts';
import { ThreadScoreChip } from '../components/ThreadScoreChip.tsx';
import type { TraceSummary } from '../api/traces.ts';
import { AddToQueueButton } from '../components/AddToQueue.tsx';
import { Copy } from '../components/Copy.tsx';
import { THREAD_PAGE_SIZE, ThreadConversation } from '../components/ThreadConversation.tsx';
import { Metric } from '../components/TraceView.tsx';
import { formatCost, formatDuration, formatFullTime, formatTime } from '../lib/format.ts';

/**
 * A thread (the traces sharing a thread id) replayed as the conversation it was: each trace
 * a turn, the user's input and the answer, with the turn's latency, cost, errors and scores,
 * linked to its trace. Read through the trace search (filtered by thread, oldest first), a
 * page of turns at a time.
 */
export default function ThreadPage() {
  const { projectId, threadId } = useParams({ from: '/p/$projectId/threads/$threadId' });
  const pages = useThreadTraces(projectId, threadId, THREAD_PAGE_SIZE);
  const evaluations = useThreadEvaluations(projectId, threadId);
  const reviews = useThreadReviews(projectId, threadId);
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
        <AddToQueueButton projectId={projectId} source={{ kind: 'threads', threadIds: [threadId], label: `Thread ${threadId}: reviewers score the whole conversation.` }} />
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
      {(reviews.data?.length ?? 0) > 0 && <ThreadReviews reviews={reviews.data!} />}
      <ThreadConversation projectId={projectId} threadId={threadId} evaluations={evaluations.data ?? []} />
    </div>
  );
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


/** People's reviews of the whole thread (review queues' thread items): each reviewer's scores, comment, and the turns they saw. */
function ThreadReviews({ reviews }: { reviews: ThreadReview[] }) {
  return (
    <section className="panel thread-results" aria-label="Thread reviews" data-testid="thread-reviews">
      <Text size="sm" fw={600} p="xs" pb={0}>
        Reviews
      </Text>
      <ul className="thread-result-list">
        {reviews.map((r) => (
          <li key={r.id} data-review-id={r.id}>
            <Group gap={8} wrap="wrap">
              {r.scores.map((s) => (
                <span key={s.configId} className={`score-chip${s.kind === 'boolean' ? (s.value ? ' pass' : ' fail') : ''}`}>
                  {s.name} {s.kind === 'boolean' ? (s.value ? '✓' : '✗') : String(s.value)}
                </span>
              ))}
              <Text size="xs" className="nowrap">
                {r.traceIds.length === 1 ? 'Turn 1' : `Turns 1–${r.traceIds.length}`}
              </Text>
              <Text size="xs" className="muted nowrap" title={formatFullTime(Date.parse(r.createdAt))}>
                {r.email ?? 'API key'} · {formatTime(Date.parse(r.createdAt))}
              </Text>
            </Group>
            {r.comment && (
              <Text size="sm" className="textblock" mt={2}>
                {r.comment}
              </Text>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

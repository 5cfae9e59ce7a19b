import { Alert, Button, Group, Text, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconExternalLink, IconThumbDown, IconThumbUp } from '@tabler/icons-react';
import { Link } from '@tanstack/react-router';
import { useThreadTraces, type TraceSummary } from '../api/traces.ts';
import type { ThreadEvaluation } from '../api/threads.ts';
import { formatCost, formatDuration, formatFullTime, formatTime, formatTokens } from '../lib/format.ts';
import { ThreadScoreChip } from './ThreadScoreChip.tsx';
import { Unloaded } from './QueryState.tsx';

export const THREAD_PAGE_SIZE = 50;

/** The newest result of each thread monitor (the list is newest first). */
export function newestPerMonitor(results: readonly ThreadEvaluation[]): ThreadEvaluation[] {
  const seen = new Set<string>();
  return results.filter((r) => {
    const key = r.monitor_id ?? r.name;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A thread replayed as the conversation it was, a page of turns at a time: each trace a turn,
 * the user's input and the answer, the turn's latency, cost, errors and scores, linked to its
 * trace; each thread monitor's newest result marks the last turn it covered. The thread page
 * and a review queue's thread item show it.
 */
export function ThreadConversation({ projectId, threadId, evaluations }: { projectId: string; threadId: string; evaluations: readonly ThreadEvaluation[] }) {
  const pages = useThreadTraces(projectId, threadId, THREAD_PAGE_SIZE);
  const newest = newestPerMonitor(evaluations);
  const turns = pages.data?.pages.flatMap((p) => p.traces) ?? [];
  const total = pages.data?.pages[0]?.pagination.totalHits ?? 0;
  return (
    <>
      {!pages.isSuccess ? (
        <Unloaded query={pages} failed="The thread could not be loaded" loading="Loading the thread" />
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
            Show the next {Math.min(THREAD_PAGE_SIZE, total - turns.length)} turns ({(total - turns.length).toLocaleString()} more)
          </Button>
        </Group>
      )}
    </>
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

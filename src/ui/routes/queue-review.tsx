import { useCallback, useEffect, useMemo, useState } from 'react';
import { Alert, Badge, Button, Group, NumberInput, SegmentedControl, Stack, Text, Textarea, Title } from '@mantine/core';
import { IconArrowLeft, IconCheck, IconChevronLeft, IconChevronRight, IconPlayerSkipForward } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { review, useClaim, useQueue, useQueueItem, useScoreConfigs } from '../api/review.ts';
import { useTraceOutline } from '../api/traces.ts';
import type { QueueItem, QueueItemDetail, ScoreConfig } from '../api/review.ts';
import { useThreadEvaluations } from '../api/threads.ts';
import { ThreadConversation } from '../components/ThreadConversation.tsx';
import { TraceView } from '../components/TraceView.tsx';
import { Loading } from '../components/QueryState.tsx';

type Value = number | boolean | string;

/**
 * "My queue": the reviewer works through a queue with the keyboard. The trace on one side
 * (the trace page's view), the queue's scores on the other. j / k move to the next or the
 * previous item (what this reviewer already did, read-only), s skips, Enter completes.
 * The item shown is claimed on the server: no other reviewer gets it meanwhile.
 */
export default function QueueReviewPage() {
  const { projectId, queueId } = useParams({ from: '/p/$projectId/queues/$queueId/review' });
  const queue = useQueue(projectId, queueId);
  const configs = useScoreConfigs(projectId);
  const navigate = useNavigate();
  // Each round claims the next item (a POST: asked once per round, never refetched by itself).
  const [round, setRound] = useState(0);
  const claimed = useClaim(projectId, queueId, round);
  const current = claimed.isPending ? undefined : (claimed.data?.current ?? null);
  const history = useMemo(() => claimed.data?.history ?? [], [claimed.data]);
  // -1: the item claimed now; 0..: what this reviewer did, latest first.
  const [position, setPosition] = useState(-1);
  const [values, setValues] = useState<Record<string, Value>>({});
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const claim = useCallback(() => {
    setError(null);
    setPosition(-1);
    setValues({});
    setComment('');
    setRound((r) => r + 1);
  }, []);

  const shown = position === -1 ? current : history[position];
  const pastId = position === -1 ? null : (history[position]?.id ?? null);
  const past = useQueueItem(projectId, queueId, pastId);

  const queueConfigs = useMemo(
    () => (queue.data?.scoreConfigIds ?? []).map((id) => configs.data?.find((c) => c.id === id)).filter((c): c is ScoreConfig => !!c),
    [queue.data, configs.data],
  );

  const complete = useCallback(async () => {
    if (!current || position !== -1 || busy) return;
    const missing = queueConfigs.find((c) => values[c.id] === undefined || values[c.id] === '');
    if (missing) return setError(`Give a score for ${missing.name}.`);
    setBusy(true);
    try {
      // A thread is scored, not thumbed: the thumb belongs to a trace.
      await review.complete(projectId, queueId, current.id, { scores: queueConfigs.map((c) => ({ configId: c.id, value: values[c.id] })), comment });
      claim();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }, [busy, claim, comment, current, position, projectId, queueConfigs, queueId, values]);

  const skip = useCallback(async () => {
    if (!current || position !== -1 || busy) return;
    setBusy(true);
    try {
      await review.skip(projectId, queueId, current.id);
      claim();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }, [busy, claim, current, position, projectId, queueId]);

  const older = useCallback(() => setPosition((p) => Math.min(p + 1, history.length - 1)), [history.length]);
  const newer = useCallback(() => setPosition((p) => Math.max(p - 1, -1)), []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      const typing = !!target && (target.tagName === 'TEXTAREA' || (target.tagName === 'INPUT' && (target as HTMLInputElement).type !== 'radio') || target.isContentEditable);
      if (e.key === 'Enter' && (!typing || e.ctrlKey || e.metaKey) && !(target?.tagName === 'BUTTON' || target?.tagName === 'A')) {
        e.preventDefault();
        void complete();
        return;
      }
      // Escape leaves a field, so that the keys below work again.
      if (typing && e.key === 'Escape') return void target.blur();
      if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'j') newer();
      else if (e.key === 'k') older();
      else if (e.key === 's') void skip();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [complete, newer, older, skip]);

  const progress = queue.data?.progress;
  const done = progress ? progress.completed + progress.skipped : 0;
  return (
    <div className="review-page">
      <div className="review-bar">
        <Group gap="sm" wrap="wrap">
          <Link to="/p/$projectId/queues" params={{ projectId }} className="back-link">
            <IconArrowLeft size={14} aria-hidden /> Queues
          </Link>
          <Title order={1} size="h4">
            {queue.data?.name ?? 'Review'}
          </Title>
          {progress && (
            <Text size="sm" className="muted" data-testid="review-progress">
              {done} of {progress.total} done
            </Text>
          )}
        </Group>
        <Text size="xs" className="muted review-keys" data-testid="review-keys">
          <kbd>j</kbd> next · <kbd>k</kbd> previous · <kbd>s</kbd> skip · <kbd>Enter</kbd> done
        </Text>
      </div>
      {queue.isError ? (
        <Alert color="red" m="md">
          {queue.error.message}
        </Alert>
      ) : current === undefined ? (
        <Loading label="Claiming the next item" />
      ) : !shown ? (
        <Stack p="md" gap="sm">
          {claimed.error && <Alert color="red">{claimed.error.message}</Alert>}
          <Alert color="teal" title="Nothing left to review" data-testid="review-empty">
            Every item of this queue is done or being reviewed by someone else.{history.length > 0 ? ' Press k to look at what you did.' : ''}
          </Alert>
          <Group>
            <Button variant="default" onClick={() => void navigate({ to: '/p/$projectId/queues', params: { projectId } })}>
              Back to the queues
            </Button>
            {history.length > 0 && (
              <Button variant="default" leftSection={<IconChevronLeft size={14} />} onClick={older}>
                Previous
              </Button>
            )}
          </Group>
        </Stack>
      ) : (
        <div className="review-split">
          <div className="review-trace">
            {shown.threadId !== null ? <ReviewThread key={shown.id} projectId={projectId} threadId={shown.threadId} /> : <ReviewTrace key={shown.id} projectId={projectId} item={shown} traceId={shown.traceId ?? ''} />}
          </div>
          <form
            className="review-form"
            aria-label="Scores"
            onSubmit={(e) => {
              e.preventDefault();
              void complete();
            }}
          >
            <Stack gap="sm">
              <Group justify="space-between" gap={6}>
                <Badge variant="light" color={position === -1 ? 'blue' : shown.status === 'completed' ? 'teal' : 'gray'} data-testid="review-state">
                  {position === -1 ? 'To review' : shown.status === 'completed' ? 'Done' : 'Skipped'}
                </Badge>
                <Text size="xs" className="mono ellipsis" title={shown.threadId ?? shown.traceId ?? undefined} data-testid="review-trace-id">
                  {shown.threadId !== null ? `thread ${shown.threadId}` : shown.traceId}
                  {shown.spanId ? ` · span ${shown.spanId}` : ''}
                </Text>
              </Group>
              {position === -1 ? (
                <>
                  {queueConfigs.length === 0 && (
                    <Text size="sm" className="muted">
                      This queue asks for no scores: add a comment if you like, and mark it done.
                    </Text>
                  )}
                  {queueConfigs.map((c) => (
                    <ScoreField key={c.id} config={c} value={values[c.id]} onChange={(v) => setValues((old) => ({ ...old, [c.id]: v }))} />
                  ))}
                  <Textarea label="Comment" description="Optional; Ctrl+Enter completes from here, Escape leaves the field" autosize minRows={2} maxRows={8} value={comment} onChange={(e) => setComment(e.currentTarget.value)} />
                  {error && (
                    <Alert color="red" p="xs" role="alert">
                      {error}
                    </Alert>
                  )}
                  <Group gap="xs" grow>
                    <Button type="button" variant="default" leftSection={<IconPlayerSkipForward size={14} />} onClick={() => void skip()} disabled={busy}>
                      Skip (s)
                    </Button>
                    <Button type="submit" leftSection={<IconCheck size={14} />} loading={busy}>
                      Done (Enter)
                    </Button>
                  </Group>
                </>
              ) : (
                <DoneScores detail={past.data ?? null} />
              )}
              <Group gap="xs" grow>
                <Button type="button" size="xs" variant="subtle" leftSection={<IconChevronLeft size={14} />} onClick={older} disabled={position >= history.length - 1}>
                  Previous (k)
                </Button>
                <Button type="button" size="xs" variant="subtle" rightSection={<IconChevronRight size={14} />} onClick={newer} disabled={position === -1}>
                  Next (j)
                </Button>
              </Group>
            </Stack>
          </form>
        </div>
      )}
    </div>
  );
}

/** One score's input, by the config's kind. */
function ScoreField({ config, value, onChange }: { config: ScoreConfig; value: Value | undefined; onChange: (v: Value) => void }) {
  const label = (
    <span>
      {config.name}
      {config.kind === 'numeric' && (
        <Text span size="xs" className="muted">
          {' '}
          ({config.min} to {config.max})
        </Text>
      )}
    </span>
  );
  if (config.kind === 'numeric') {
    return (
      <NumberInput
        label={label}
        description={config.description}
        min={config.min ?? undefined}
        max={config.max ?? undefined}
        value={typeof value === 'number' ? value : ''}
        onChange={(v) => onChange(typeof v === 'number' ? v : v === '' ? '' : Number(v))}
      />
    );
  }
  const data = config.kind === 'boolean' ? [{ value: 'true', label: 'Yes' }, { value: 'false', label: 'No' }] : config.categories.map((c) => ({ value: c, label: c }));
  return (
    <div>
      <Text size="sm" fw={500} id={`score-${config.id}`}>
        {label}
      </Text>
      {config.description && (
        <Text size="xs" className="muted">
          {config.description}
        </Text>
      )}
      <SegmentedControl
        aria-labelledby={`score-${config.id}`}
        fullWidth
        size="xs"
        mt={4}
        data={data}
        value={value === undefined ? '' : String(value)}
        onChange={(v) => onChange(config.kind === 'boolean' ? v === 'true' : v)}
        style={{ flexWrap: 'wrap' }}
      />
    </div>
  );
}

function DoneScores({ detail }: { detail: QueueItemDetail | null }) {
  if (!detail) return <Loading label="Loading" size="xs" inline />;
  const done = detail.annotation ?? detail.threadReview;
  if (!done) {
    return (
      <Text size="sm" className="muted">
        You skipped this one.
      </Text>
    );
  }
  return (
    <Stack gap={4} data-testid="review-done-scores">
      {(done.scores ?? []).map((s) => (
        <Group key={s.configId} justify="space-between" gap={6}>
          <Text size="sm">{s.name}</Text>
          <Text size="sm" fw={600}>
            {s.kind === 'boolean' ? (s.value ? 'Yes' : 'No') : String(s.value)}
          </Text>
        </Group>
      ))}
      {done.comment && (
        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
          {done.comment}
        </Text>
      )}
    </Stack>
  );
}

/** A thread item: the whole conversation, as the thread page shows it, with the thread monitors' results. */
function ReviewThread({ projectId, threadId }: { projectId: string; threadId: string }) {
  const evaluations = useThreadEvaluations(projectId, threadId);
  return (
    <Stack gap="sm" p="md" className="thread-page">
      <Group gap="sm" justify="space-between" wrap="wrap">
        <Text size="sm" fw={600}>
          The conversation
        </Text>
        <Link to="/p/$projectId/threads/$threadId" params={{ projectId, threadId }}>
          Open the thread page
        </Link>
      </Group>
      <ThreadConversation projectId={projectId} threadId={threadId} evaluations={evaluations.data ?? []} />
    </Stack>
  );
}

/** The item's trace, as the trace page shows it (its span selected when the item is a span). */
function ReviewTrace({ projectId, item, traceId }: { projectId: string; item: QueueItem; traceId: string }) {
  const outline = useTraceOutline({ projectId, traceId });
  const [span, setSpan] = useState<string | null>(item.spanId);
  if (outline.isPending) {
    return <Loading label="Loading the trace" />;
  }
  if (outline.isError) {
    return (
      <Alert color="gray" m="md" title="This trace cannot be shown">
        {outline.error.message}
      </Alert>
    );
  }
  return (
    <TraceView
      trace={outline.data}
      source={{ projectId, traceId }}
      selectedSpanId={span}
      onSelectSpan={setSpan}
      project={{ id: projectId, threadLink: (t) => t, userLink: (u) => u }}
      actions={
        <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId }}>
          Open the trace page
        </Link>
      }
    />
  );
}

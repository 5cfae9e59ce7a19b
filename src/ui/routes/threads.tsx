import { Fragment, useEffect, useMemo, useState } from 'react';
import { ListPager } from '../components/ListPager.tsx';
import { TimeCell } from '../components/TimeCell.tsx';
import { Group, NativeSelect, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { AddToQueueButton } from '../components/AddToQueue.tsx';
import { sortHeaders } from '../components/SortHeader.tsx';
import { useThreads, type ThreadRow } from '../api/threads.ts';
import { useScoreConfigs } from '../api/review.ts';
import { useMonitors } from '../api/evaluators.ts';
import { fieldError } from '../lib/form-errors.ts';
import { ThreadScoreChip } from '../components/ThreadScoreChip.tsx';
import { ListToolbar } from '../components/TraceFilters.tsx';
import { ScoreFilterInput } from '../components/filter-editors.tsx';
import { toSearchRequest, type ListSearch } from '../lib/list-search.ts';
import { parseScoreFilter } from '../lib/trace-filters.ts';
import { useRangeAnchor } from '../lib/use-range-anchor.ts';
import type { ThreadsSearch } from '../lib/page-searches.ts';
import { formatCost, formatDuration } from '../lib/format.ts';
import { QueryState } from '../components/QueryState.tsx';

const PAGE_SIZE = 50;
type Sort = NonNullable<ThreadsSearch['tsort']>;

const VERDICTS = { any: 'Any result', pass: 'Passed', fail: 'Failed', error: 'Error' } as const;
type Verdict = keyof typeof VERDICTS;

/** The URL's thread monitor filter, `<any|pass|fail|error>:<monitor name>`, or null. */
function parseThreadEvaluationFilter(text: string | undefined): { verdict: Verdict; name: string } | null {
  const colon = text?.indexOf(':') ?? -1;
  if (!text || colon <= 0 || colon === text.length - 1) return null;
  const verdict = text.slice(0, colon);
  return verdict in VERDICTS ? { verdict: verdict as Verdict, name: text.slice(colon + 1) } : null;
}

/** The server's `evaluation` filter of a parsed URL filter. */
function evaluationBody(f: { verdict: Verdict; name: string } | null) {
  if (!f) return undefined;
  return { name: f.name, ...(f.verdict === 'pass' ? { passed: true } : f.verdict === 'fail' ? { passed: false } : f.verdict === 'error' ? { status: 'error' as const } : {}) };
}

/**
 * The project's threads (traces sharing a thread id): turns, duration, cost, errors, users
 * and the thread monitors' scores; the traces list's search and filters pick the threads
 * (any of whose traces matches), the headers sort them.
 */
export default function ThreadsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/threads' });
  const search = useSearch({ from: '/p/$projectId/threads' });
  const navigate = useNavigate({ from: '/p/$projectId/threads' });
  const sort: Sort = search.tsort ?? 'last_seen';
  const dir = search.dir ?? (sort === 'thread_id' ? 'asc' : 'desc');
  const page = search.page ?? 1;
  const [text, setText] = useState(search.tid ?? '');
  const [debounced] = useDebouncedValue(text.trim(), 250);
  useEffect(() => {
    if (debounced !== (search.tid ?? '')) void navigate({ search: { ...search, tid: debounced || undefined, page: undefined }, replace: true });
  }, [debounced, search, navigate]);

  const anchor = useRangeAnchor(search);
  const body = useMemo(() => {
    const { query, filters, startDate, endDate } = toSearchRequest(search, anchor);
    const scored = parseScoreFilter(search.tscore);
    // Boolean configs take true/false; the server compares a categorical value as text.
    const value = scored?.value === 'true' ? true : scored?.value === 'false' ? false : scored?.value;
    const reviewScore = scored ? { configId: scored.configId, min: scored.min, max: scored.max, value } : undefined;
    const order = sort.startsWith('score:')
      ? { sortByScore: sort.slice('score:'.length) }
      : sort.startsWith('eval:')
        ? { sortByEvaluation: sort.slice('eval:'.length) }
        : { sortBy: sort as Exclude<Sort, `score:${string}` | `eval:${string}`> };
    const evaluation = evaluationBody(parseThreadEvaluationFilter(search.teval));
    return { query, filters, startDate, endDate, search: search.tid, reviewScore, evaluation, ...order, sortDirection: dir, page, pageSize: PAGE_SIZE };
  }, [search, anchor, sort, dir, page]);
  const threads = useThreads(projectId, body);
  const configs = useScoreConfigs(projectId);
  const monitors = useMonitors(projectId);
  const evaluated = parseThreadEvaluationFilter(search.teval);
  const total = threads.data?.pagination.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const setList = (next: ListSearch) => void navigate({ search: { ...next, tsort: search.tsort, tid: search.tid, tscore: search.tscore, teval: search.teval, page: undefined }, replace: true });

  // Thread monitors' results: one column per monitor (by the name its results carry), its newest result per thread.
  const threadMonitorNames = useMemo(() => (monitors.data ?? []).filter((m) => m.unit === 'thread').map((m) => m.name), [monitors.data]);
  const evalColumns = useMemo(() => {
    const names = new Set(threadMonitorNames);
    for (const t of threads.data?.threads ?? []) for (const s of t.scores) names.add(s.name);
    if (sort.startsWith('eval:')) names.add(sort.slice('eval:'.length));
    if (evaluated) names.add(evaluated.name);
    return [...names].sort((a, b) => a.localeCompare(b));
  }, [threadMonitorNames, threads.data, sort, evaluated]);
  const setEvaluated = (next: { verdict: Verdict; name: string } | null) =>
    void navigate({ search: { ...search, teval: next ? `${next.verdict}:${next.name}` : undefined, page: undefined }, replace: true });
  const evalError = fieldError(threads.error, 'body.evaluation', 'body.sortByEvaluation');

  // People's scores (review queues' thread items): one column per score config given on this page.
  // The score sorted or filtered by keeps its column when no thread on the page has it.
  const reviewColumns = useMemo(() => {
    const seen = new Map<string, { name: string; kind: string }>();
    for (const t of threads.data?.threads ?? []) for (const r of t.review_scores) seen.set(r.configId, { name: r.name, kind: r.kind });
    for (const id of [sort.startsWith('score:') ? sort.slice('score:'.length) : null, parseScoreFilter(search.tscore)?.configId]) {
      const config = id ? configs.data?.find((c) => c.id === id) : undefined;
      if (config && !seen.has(config.id)) seen.set(config.id, { name: config.name, kind: config.kind });
    }
    return [...seen].map(([configId, c]) => ({ configId, ...c })).sort((a, b) => a.name.localeCompare(b.name));
  }, [threads.data, configs.data, sort, search.tscore]);
  const onPage = threads.data?.threads.map((t) => t.thread_id) ?? [];

  const header = sortHeaders<Sort>(sort, dir, 'thread_id', (column, next) => void navigate({ search: { ...search, tsort: column, dir: next, page: undefined }, replace: true }));

  return (
    <div className="page">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={1} size="h3">
          Threads
        </Title>
        <AddToQueueButton
          projectId={projectId}
          size="compact-sm"
          source={{ kind: 'threads', threadIds: onPage, label: `The ${onPage.length} thread${onPage.length === 1 ? '' : 's'} on this page: reviewers score each whole conversation.` }}
        />
        <TextInput
          size="sm"
          aria-label="Find a thread by id"
          placeholder="Find a thread by id"
          leftSection={<IconSearch size={14} aria-hidden />}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          style={{ flex: '1 1 220px', maxWidth: 340 }}
        />
      </Group>
      <ListToolbar search={search} onChange={setList} sortable={false} />
      <Group gap="md" align="flex-end" wrap="wrap">
        <Group gap="xs" align="flex-start" wrap="nowrap" className="thread-eval-filter" style={{ flex: '1 1 300px', maxWidth: 420 }}>
          <NativeSelect
            size="xs"
            label="Thread monitor"
            value={evaluated?.name ?? ''}
            error={evalError}
            onChange={(e) => setEvaluated(e.currentTarget.value ? { verdict: evaluated?.verdict ?? 'any', name: e.currentTarget.value } : null)}
            data={[{ value: '', label: 'Any' }, ...evalColumns.map((n) => ({ value: n, label: n }))]}
            style={{ flex: '1 1 0', minWidth: 0 }}
          />
          <NativeSelect
            size="xs"
            label="Its newest result"
            value={evaluated?.verdict ?? 'any'}
            disabled={!evaluated}
            onChange={(e) => evaluated && setEvaluated({ ...evaluated, verdict: e.currentTarget.value as Verdict })}
            data={Object.entries(VERDICTS).map(([value, label]) => ({ value, label }))}
            style={{ flex: '1 1 0', minWidth: 0 }}
          />
        </Group>
        <div className="thread-score-filter" style={{ flex: '1 1 300px', maxWidth: 520 }}>
          <ScoreFilterInput label="Thread review score" value={search.tscore} onChange={(tscore) => void navigate({ search: { ...search, tscore, page: undefined }, replace: true })} />
        </div>
      </Group>
      <Text size="sm" className="muted">
        Conversations: the traces sharing a thread id. A thread is listed when any of its traces matches the search and filters; its figures count all its turns. A thread
        monitor's column shows its newest result on the thread; the columns after them are people's scores from review queues.
      </Text>
      <QueryState
        query={threads}
        failed="The threads could not be loaded"
        loading="Loading threads"
        empty={(answer) =>
          answer.threads.length === 0 && {
            title: 'No threads match',
            children: (
            <>
              Traces join a thread by their thread id (metadata <span className="mono">thread_id</span>, or the langwatch.thread.id attribute).
            </>
          ),
          }
        }
      >
        {(answer) => (
          <>
            <div className="panel table-scroll" style={{ flexShrink: 0 }}>
              <Table striped highlightOnHover verticalSpacing={6} aria-label="Threads" aria-rowcount={total + 1} data-testid="threads-table" style={{ opacity: threads.isPlaceholderData ? 0.6 : 1 }}>
                <Table.Thead>
                  <Table.Tr>
                    {header('thread_id', 'Thread')}
                    {header('turns', 'Turns', true)}
                    {header('duration', 'Duration', true)}
                    {header('cost', 'Cost', true)}
                    {header('errors', 'Errors', true)}
                    {header('users', 'Users')}
                    {evalColumns.map((name) => (
                      // Sorted by the newest result's score (a pass 1, a fail 0): the server's sortByEvaluation.
                      <Fragment key={`eval:${name}`}>{header(`eval:${name}`, name)}</Fragment>
                    ))}
                    {reviewColumns.map((c) =>
                      // Numeric and boolean scores sort by their mean (the server's sortByScore); categories do not.
                      c.kind === 'categorical' ? (
                        <Table.Th key={c.configId} title="People's score (review queues)">
                          {c.name}
                        </Table.Th>
                      ) : (
                        <Fragment key={c.configId}>{header(`score:${c.configId}`, c.name, true)}</Fragment>
                      ),
                    )}
                    {header('last_seen', 'Last turn')}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {answer.threads.map((t) => (
                    <Table.Tr key={t.thread_id} data-thread-id={t.thread_id}>
                      <Table.Td className="ellipsis mono" style={{ maxWidth: 240 }}>
                        <Link to="/p/$projectId/threads/$threadId" params={{ projectId, threadId: t.thread_id }} title={`Open thread ${t.thread_id}`}>
                          {t.thread_id}
                        </Link>
                      </Table.Td>
                      <Table.Td className="num">{t.turns.toLocaleString()}</Table.Td>
                      <Table.Td className="num nowrap">{formatDuration(t.duration_ms)}</Table.Td>
                      <Table.Td className="num">{formatCost(t.cost)}</Table.Td>
                      <Table.Td className="num" style={{ color: t.errors ? '#c92a2a' : undefined }}>
                        {t.errors.toLocaleString()}
                      </Table.Td>
                      <Table.Td className="ellipsis" style={{ maxWidth: 200 }} title={t.users.join(', ')}>
                        {t.users.length === 0 ? <span className="muted">—</span> : t.users.join(', ')}
                        {t.user_count > t.users.length && <span className="muted"> +{t.user_count - t.users.length}</span>}
                      </Table.Td>
                      {evalColumns.map((name) => {
                        const s = t.scores.find((x) => x.name === name);
                        return (
                          <Table.Td key={`eval:${name}`} className="nowrap" data-thread-monitor={name}>
                            {s ? <ThreadScoreChip score={s} verdictOnly /> : <span className="muted">—</span>}
                          </Table.Td>
                        );
                      })}
                      {reviewColumns.map((c) => (
                        <Table.Td key={c.configId} className="num nowrap" data-review-score={c.name}>
                          {reviewCell(t, c.configId)}
                        </Table.Td>
                      ))}
                      <TimeCell at={t.last_seen} />
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </div>
            <ListPager total={total} noun="thread" page={page} pages={pages} testId="threads-count" go={(p) => void navigate({ search: { ...search, page: p > 1 ? p : undefined }, replace: true })} />
          </>
        )}
      </QueryState>
    </div>
  );
}

/** A thread's review score of one config: the mean (a boolean's share of yes), or the latest category; with the count when several people scored. */
function reviewCell(t: ThreadRow, configId: string) {
  const r = t.review_scores.find((x) => x.configId === configId);
  if (!r) return <span className="muted">—</span>;
  const shown = r.kind === 'boolean' ? (r.count === 1 ? (r.latest ? 'Yes' : 'No') : `${Math.round((r.mean ?? 0) * 100)}% yes`) : r.kind === 'numeric' ? String(Math.round((r.mean ?? 0) * 100) / 100) : String(r.latest);
  return r.count > 1 ? `${shown} (${r.count})` : shown;
}

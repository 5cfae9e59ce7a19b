import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { Alert, Badge, Button, Group, Loader, Text, Tooltip } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconAlertTriangle, IconArrowDown, IconArrowUp, IconThumbDown, IconThumbUp } from '@tabler/icons-react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { api } from '../api/client.ts';
import type { NewTracesResponse, SearchResponse, TraceSummary } from '../api/types.ts';
import { FirstRun } from '../components/FirstRun.tsx';
import { ListToolbar } from '../components/TraceFilters.tsx';
import { formatCost, formatDuration, formatFullTime, formatTime, formatTokens, oneLine } from '../lib/format.ts';
import { activeFilterCount, toSearchRequest, useRangeAnchor, type ListSearch } from '../lib/list-search.ts';

const PAGE_SIZE = 100;
const POLL_MS = 1500;
/** Transactions commit in any order: each poll looks this far behind the server's last `now`. */
const POLL_OVERLAP_MS = 5000;
const HEADER_H = 34;

export default function TracesPage() {
  const { projectId } = useParams({ from: '/p/$projectId/traces' });
  const search = useSearch({ from: '/p/$projectId/traces' });
  const navigate = useNavigate({ from: '/p/$projectId/traces' });
  const anchor = useRangeAnchor(search);
  const request = useMemo(() => toSearchRequest(search, anchor), [search, anchor]);
  const liveInsert = (search.sort ?? 'time') === 'time' && (search.dir ?? 'desc') === 'desc';

  const pages = useInfiniteQuery({
    queryKey: ['traces', projectId, request],
    queryFn: ({ pageParam, signal }) =>
      api<SearchResponse>('POST', '/api/trace/search', {
        projectId,
        signal,
        body: { ...request, pageSize: PAGE_SIZE, ...(pageParam ? { scrollId: pageParam } : {}) },
      }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.pagination.scrollId,
  });

  const live = useLiveTraces(projectId, request, pages.isSuccess);
  const loaded = useMemo(() => pages.data?.pages.flatMap((p) => p.traces) ?? [], [pages.data]);
  const rows = useMemo(() => {
    if (!liveInsert || !live.fresh.length) return loaded;
    // New traces land where "newest first" puts them, not on top in the order they arrived
    // (a batch may carry traces that started minutes ago). The sort is stable: rows of equal
    // start keep the server's order.
    const seen = new Set(live.fresh.map((t) => t.trace_id));
    return [...live.fresh, ...loaded.filter((t) => !seen.has(t.trace_id))].sort((a, b) => b.timestamps.started_at - a.timestamps.started_at);
  }, [live.fresh, loaded, liveInsert]);
  useEffect(() => live.know(loaded), [loaded, live]);

  const total = pages.data?.pages[0]?.pagination;
  const totalHits = (total?.totalHits ?? 0) + (liveInsert ? live.fresh.length : 0);
  const filtered = activeFilterCount(search) > 0 || !!search.q;
  const setSearch = (next: ListSearch) => void navigate({ search: next, replace: true });

  return (
    <div className="list-page">
      <ListToolbar search={search} onChange={setSearch} />
      <Group gap="xs" justify="space-between" wrap="nowrap" mih={22}>
        <Text size="xs" className="muted" aria-live="polite">
          {pages.isSuccess ? `${totalHits.toLocaleString()}${total?.totalHitsRelation === 'gte' ? '+' : ''} traces` : ' '}
          {liveInsert && live.fresh.length > 0 ? ` · ${live.fresh.length} new` : ''}
        </Text>
        <Group gap={6} wrap="nowrap">
          {!liveInsert && live.pendingCount > 0 && (
            <Button size="compact-xs" variant="light" onClick={() => void pages.refetch().then(live.reset)}>
              {live.pendingCount} new — show
            </Button>
          )}
          <Text size="xs" className="muted" title="New traces appear by themselves">
            <span aria-hidden style={{ color: live.ok ? '#2f9e44' : '#868e96' }}>●</span> Live
          </Text>
        </Group>
      </Group>
      {pages.isError ? (
        <Alert color="red" title="The traces could not be loaded">
          {pages.error.message}
        </Alert>
      ) : pages.isPending ? (
        <Group justify="center" p="xl">
          <Loader size="sm" aria-label="Loading traces" />
        </Group>
      ) : rows.length === 0 && !filtered ? (
        <FirstRun projectId={projectId} />
      ) : rows.length === 0 ? (
        <Alert color="gray" title="No trace matches">
          <Group gap="xs">
            <Text size="sm">Change the search or the filters.</Text>
            <Button size="compact-sm" variant="light" onClick={() => setSearch({})}>
              Clear all
            </Button>
          </Group>
        </Alert>
      ) : (
        <TraceGrid
          placeKey={`${projectId} ${JSON.stringify(request)}`}
          projectId={projectId}
          rows={rows}
          freshIds={live.freshIds}
          search={search}
          onSort={(sort) => setSearch({ ...search, sort: sort === 'time' ? undefined : sort, dir: nextDirection(search, sort) })}
          loadMore={() => {
            if (pages.hasNextPage && !pages.isFetchingNextPage) void pages.fetchNextPage();
          }}
          loadingMore={pages.isFetchingNextPage}
        />
      )}
    </div>
  );
}

function nextDirection(search: ListSearch, sort: 'time' | 'cost' | 'latency'): 'asc' | undefined {
  const current = search.sort ?? 'time';
  if (current !== sort) return undefined; // a new column starts descending
  return (search.dir ?? 'desc') === 'desc' ? 'asc' : undefined;
}

/**
 * Follows new traces of the list's search: polls POST /api/trace/search/new (a database
 * read, so any process of a cluster answers alike). The first poll only learns the
 * server's clock; each later one asks from the last answer's `now`, less an overlap.
 */
function useLiveTraces(projectId: string, request: ReturnType<typeof toSearchRequest>, enabled: boolean) {
  const [fresh, setFresh] = useState<TraceSummary[]>([]);
  const [pendingCount, setPendingCount] = useState(0);
  const [ok, setOk] = useState(false);
  const known = useRef(new Set<string>());
  const since = useRef<number | null>(null);

  // Another search (or project) starts with nothing new: reset while rendering, so the
  // previous search's new traces never show above this one's.
  const [following, setFollowing] = useState({ projectId, request, enabled });
  if (following.projectId !== projectId || following.request !== request || following.enabled !== enabled) {
    setFollowing({ projectId, request, enabled });
    setFresh([]);
    setPendingCount(0);
  }

  useEffect(() => {
    known.current = new Set();
    since.current = null;
    if (!enabled) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const { sortBy: _s, sortDirection: _d, ...filters } = request;
    const poll = async () => {
      try {
        const answer = await api<NewTracesResponse>('POST', '/api/trace/search/new', {
          projectId,
          body: { ...filters, since: since.current ?? Number.MAX_SAFE_INTEGER, pageSize: 100 },
        });
        if (stopped) return;
        const first = since.current === null;
        since.current = answer.now - POLL_OVERLAP_MS;
        const added = first ? [] : answer.traces.filter((t) => !known.current.has(t.trace_id));
        for (const t of added) known.current.add(t.trace_id);
        if (added.length) {
          setFresh((list) => [...added, ...list]);
          setPendingCount((n) => n + added.length);
        }
        setOk(true);
      } catch {
        if (!stopped) setOk(false);
      }
      if (!stopped) timer = setTimeout(() => void poll(), document.hidden ? POLL_MS * 4 : POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [projectId, request, enabled]);

  return useMemo(
    () => ({
      fresh,
      freshIds: new Set(fresh.map((t) => t.trace_id)),
      pendingCount,
      ok,
      know: (traces: TraceSummary[]) => {
        for (const t of traces) known.current.add(t.trace_id);
      },
      reset: () => {
        setFresh([]);
        setPendingCount(0);
      },
    }),
    [fresh, pendingCount, ok],
  );
}

/**
 * Where the reader was in each list (by project and search): Back from a trace returns to
 * the same rows. The loaded pages stay in the query cache; this keeps the scroll offset.
 */
const places = new Map<string, number>();

interface GridProps {
  /** The list's identity (project and search) for keeping its scroll position. */
  placeKey: string;
  projectId: string;
  rows: TraceSummary[];
  freshIds: Set<string>;
  search: ListSearch;
  onSort: (sort: 'time' | 'cost' | 'latency') => void;
  loadMore: () => void;
  loadingMore: boolean;
}

function TraceGrid({ placeKey, projectId, rows, freshIds, search, onSort, loadMore, loadingMore }: GridProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const pointerInside = useRef(false);
  const narrow = useMediaQuery('(max-width: 760px)') ?? false;
  const rowHeight = narrow ? 84 : 38;
  const headerHeight = narrow ? 0 : HEADER_H;
  const navigate = useNavigate();

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    scrollMargin: headerHeight,
    getItemKey: (i) => rows[i].trace_id,
  });

  // Back from a trace: the list opens where the reader left it (once, on mount).
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const saved = places.get(placeKey);
    if (el && saved) el.scrollTop = saved;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the list opens
  }, []);

  // New traces land where the sort puts them: keep the rows the reader is looking at (or
  // pointing at) in place, anchored on the first row in view.
  const anchor = useRef<{ id: string; index: number } | null>(null);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const previous = anchor.current;
    if (el && previous) {
      const index = rows.findIndex((r) => r.trace_id === previous.id);
      if (index > previous.index && (pointerInside.current || el.scrollTop > 0)) el.scrollTop += (index - previous.index) * rowHeight;
    }
    const first = el ? Math.min(rows.length - 1, Math.max(0, Math.floor(el.scrollTop / rowHeight))) : 0;
    anchor.current = rows[first] ? { id: rows[first].trace_id, index: first } : null;
  }, [rows, rowHeight]);
  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    places.set(placeKey, el.scrollTop);
    const first = Math.min(rows.length - 1, Math.max(0, Math.floor(el.scrollTop / rowHeight)));
    anchor.current = rows[first] ? { id: rows[first].trace_id, index: first } : null;
  };

  const items = virtualizer.getVirtualItems();
  const last = items[items.length - 1];
  useEffect(() => {
    if (last && last.index >= rows.length - 30) loadMore();
  }, [last, rows.length, loadMore]);

  const sort = search.sort ?? 'time';
  const dir = search.dir ?? 'desc';
  const sortHeader = (key: 'time' | 'cost' | 'latency', label: string) => (
    <div role="columnheader" aria-sort={sort === key ? (dir === 'asc' ? 'ascending' : 'descending') : 'none'} className={key === 'time' ? undefined : 'num'}>
      <button type="button" onClick={() => onSort(key)} title={`Sort by ${label.toLowerCase()}`}>
        {label}
        {sort === key && (dir === 'asc' ? <IconArrowUp size={12} aria-hidden /> : <IconArrowDown size={12} aria-hidden />)}
      </button>
    </div>
  );

  // ↑/↓ move between rows (their links), as in a grid; Enter opens (the link).
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const row = (e.target as HTMLElement).closest('[role=row][data-trace-id]');
    if (!row) return;
    e.preventDefault();
    const index = Number(row.getAttribute('aria-rowindex')) - 2 + (e.key === 'ArrowDown' ? 1 : -1);
    if (index < 0 || index >= rows.length) return;
    virtualizer.scrollToIndex(index, { align: 'auto' });
    requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[aria-rowindex="${index + 2}"] a`)?.focus());
  };

  const open = (e: MouseEvent, traceId: string) => {
    if ((e.target as HTMLElement).closest('a,button')) return;
    if (window.getSelection()?.toString()) return; // selecting text, not opening
    void navigate({ to: '/p/$projectId/traces/$traceId', params: { projectId, traceId } });
  };

  return (
    <div
      className="list-grid"
      ref={scrollRef}
      role="table"
      aria-label="Traces"
      aria-rowcount={rows.length + 1}
      onPointerEnter={() => (pointerInside.current = true)}
      onPointerLeave={() => (pointerInside.current = false)}
      onKeyDown={onKeyDown}
      onScroll={onScroll}
      data-testid="traces-grid"
    >
      <div className="list-head" role="row" aria-rowindex={1}>
        {sortHeader('time', 'Time')}
        <div role="columnheader">Input</div>
        <div role="columnheader">Output</div>
        <div role="columnheader">User</div>
        <div role="columnheader">Labels</div>
        <div role="columnheader">Models</div>
        <div role="columnheader" className="num">
          Tokens
        </div>
        {sortHeader('cost', 'Cost')}
        {sortHeader('latency', 'Latency')}
        <div role="columnheader">Error</div>
        <div role="columnheader">Evaluations</div>
        <div role="columnheader">Notes</div>
      </div>
      <div className="list-body" role="rowgroup" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const t = rows[item.index];
          return (
            <TraceRow
              key={item.key}
              trace={t}
              projectId={projectId}
              top={item.start - headerHeight}
              index={item.index}
              fresh={freshIds.has(t.trace_id)}
              onClick={(e) => open(e, t.trace_id)}
            />
          );
        })}
      </div>
      {loadingMore && (
        <Group justify="center" p="xs">
          <Loader size="xs" aria-label="Loading more traces" />
        </Group>
      )}
    </div>
  );
}

function TraceRow({ trace: t, projectId, top, index, fresh, onClick }: { trace: TraceSummary; projectId: string; top: number; index: number; fresh: boolean; onClick: (e: MouseEvent) => void }) {
  const m = t.metrics;
  const tokens = m.prompt_tokens === null && m.completion_tokens === null ? null : (m.prompt_tokens ?? 0) + (m.completion_tokens ?? 0);
  const meta = t.metadata as Record<string, unknown> & { user_id?: string; labels?: string[] };
  const labels = meta.labels ?? [];
  const evaluations = t.evaluations ?? [];
  const notes = t.annotations;
  const input = oneLine(t.input.value);
  const output = oneLine(t.output.value);
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      className={`list-row${fresh ? ' is-new' : ''}`}
      data-started-at={t.timestamps.started_at}
      style={{ transform: `translateY(${top}px)` }}
      onClick={onClick}
      data-trace-id={t.trace_id}
    >
      <div role="cell" className="c-time nowrap">
        <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: t.trace_id }} title={formatFullTime(t.timestamps.started_at)}>
          {formatTime(t.timestamps.started_at)}
        </Link>
      </div>
      <div role="cell" className="c-input ellipsis" title={input}>
        {input || <span className="muted">–</span>}
      </div>
      <div role="cell" className="c-output ellipsis" title={output}>
        {output || <span className="muted">–</span>}
      </div>
      <div role="cell" className="c-user ellipsis" title={meta.user_id}>
        {meta.user_id ?? ''}
      </div>
      <div role="cell" className="c-labels chips">
        {labels.slice(0, 2).map((l) => (
          <Badge key={l} size="xs" variant="light" color="gray" maw={100} title={l} tt="none">
            {l}
          </Badge>
        ))}
        {labels.length > 2 && <Text size="xs">+{labels.length - 2}</Text>}
      </div>
      <div role="cell" className="c-models ellipsis" title={(t.models ?? []).join(', ')}>
        {(t.models ?? []).join(', ')}
      </div>
      <div role="cell" className="c-tokens num" title={tokens === null ? undefined : `${m.prompt_tokens ?? 0} prompt + ${m.completion_tokens ?? 0} completion${m.tokens_estimated ? ' (estimated)' : ''}`}>
        {tokens === null ? '–' : `${m.tokens_estimated ? '~' : ''}${formatTokens(tokens)}`}
      </div>
      <div role="cell" className="c-cost num">
        {formatCost(m.total_cost)}
      </div>
      <div role="cell" className="c-latency num nowrap">
        {formatDuration(m.total_time_ms)}
      </div>
      <div role="cell" className="c-error">
        {t.error && (
          <Tooltip label={t.error.message} multiline maw={360} withinPortal>
            <span role="img" style={{ color: "#c92a2a", display: "inline-flex" }} aria-label={`Error: ${t.error.message}`}>
              <IconAlertTriangle size={16} />
            </span>
          </Tooltip>
        )}
      </div>
      <div role="cell" className="c-evals chips">
        <EvaluationCounts evaluations={evaluations} />
      </div>
      <div role="cell" className="c-annotations nowrap">
        {notes && notes.thumbs_up > 0 && (
          <span title={`${notes.thumbs_up} thumbs up`} style={{ color: '#2b8a3e', marginRight: 4 }}>
            <IconThumbUp size={13} aria-label="thumbs up" style={{ verticalAlign: -2 }} /> {notes.thumbs_up}
          </span>
        )}
        {notes && notes.thumbs_down > 0 && (
          <span title={`${notes.thumbs_down} thumbs down`} style={{ color: '#c92a2a' }}>
            <IconThumbDown size={13} aria-label="thumbs down" style={{ verticalAlign: -2 }} /> {notes.thumbs_down}
          </span>
        )}
      </div>
    </div>
  );
}

/** Passed and failed evaluations of a row, counted; the names are in the tooltip. */
function EvaluationCounts({ evaluations }: { evaluations: NonNullable<TraceSummary['evaluations']> }) {
  if (!evaluations.length) return null;
  const passed = evaluations.filter((e) => e.passed === true);
  const failed = evaluations.filter((e) => e.passed === false);
  const other = evaluations.length - passed.length - failed.length;
  const describe = evaluations.map((e) => `${e.name}: ${e.passed === true ? 'passed' : e.passed === false ? 'failed' : e.status}${e.score !== null ? ` (${e.score})` : ''}`).join('\n');
  return (
    <span title={describe} style={{ display: 'inline-flex', gap: 4 }}>
      {passed.length > 0 && (
        <Badge size="sm" variant="light" color="green" tt="none" aria-label={`${passed.length} passed`}>
          ✓ {passed.length}
        </Badge>
      )}
      {failed.length > 0 && (
        <Badge size="sm" variant="light" color="red" tt="none" aria-label={`${failed.length} failed`}>
          ✗ {failed.length}
        </Badge>
      )}
      {other > 0 && (
        <Badge size="sm" variant="light" color="gray" tt="none">
          {other} other
        </Badge>
      )}
    </span>
  );
}

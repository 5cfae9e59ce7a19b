import { Fragment, useEffect, useLayoutEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent, type MouseEvent } from 'react';
import { Alert, Button, Checkbox, Group, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowDown, IconArrowUp, IconMessages } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { fetchNewTraces, useTraceList } from '../api/traces.ts';
import type { TraceSummary } from '../api/traces.ts';
import { can, useSession } from '../api/session.ts';
import { useSavedViewMutations, useSavedViews } from '../api/views.ts';
import { FirstRun } from '../components/FirstRun.tsx';
import { AddToDatasetButton } from '../components/AddToDataset.tsx';
import { AddToQueueButton } from '../components/AddToQueue.tsx';
import { ColumnsPicker, DEFAULT_COLUMNS, SavedViews, columnDef, columnTitle, gridOf, sortOf } from '../components/TraceColumns.tsx';
import { useScoreConfigs } from '../api/review.ts';
import type { ScoreConfig } from '../api/review.ts';
import { ListToolbar } from '../components/TraceFilters.tsx';
import { activeFilterCount, decodeColumns, encodeColumns, searchConditions, toSearchRequest, viewSearchOf, type ListSearch, type ListSort } from '../lib/list-search.ts';
import { useRangeAnchor } from '../lib/use-range-anchor.ts';
import { Unloaded, Loading } from '../components/QueryState.tsx';

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

  const pages = useTraceList(projectId, request);

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
  // Traces ticked for "Add to dataset"; another search starts with none.
  const [selection, setSelection] = useState<{ request: unknown; ids: Set<string> }>({ request, ids: new Set() });
  const selected = selection.request === request ? selection.ids : new Set<string>();
  const setSelected = (ids: Set<string>) => setSelection({ request, ids });
  // Every trace matching the search, the whole filter (imports and queues take what the search takes).
  const importFilter = useMemo(() => searchConditions(request), [request]);

  // Columns: the URL's, else the default ones; a saved view is a name for a search and columns.
  const columns = useMemo(() => (decodeColumns(search.cols) ?? [...DEFAULT_COLUMNS]).filter((c) => columnDef(c) !== null), [search.cols]);
  const setColumns = (next: string[]) => setSearch({ ...search, cols: sameColumns(next, DEFAULT_COLUMNS) ? undefined : encodeColumns(next) });
  const { data: session } = useSession();
  const scoreConfigs = useScoreConfigs(projectId).data;
  const views = useSavedViews(projectId);
  const viewMutations = useSavedViewMutations(projectId);
  const current = (search.view && views.data?.find((v) => v.id === search.view)) || null;
  const modified = !!current && (!sameSearch(viewSearchOf(search), current.search) || !sameColumns(columns, current.columns.length ? current.columns : DEFAULT_COLUMNS));
  const openView = (v: { id: string; search: Record<string, string>; columns: string[] } | null) =>
    setSearch(v ? { ...(v.search as ListSearch), view: v.id, ...(v.columns.length ? { cols: encodeColumns(v.columns) } : {}) } : {});
  const savedColumns = () => (sameColumns(columns, DEFAULT_COLUMNS) ? [] : columns);

  return (
    <div className="list-page">
      <ListToolbar search={search} onChange={setSearch} />
      <Group gap="xs" justify="space-between" wrap="wrap" mih={22} className="list-status">
        <Group gap={6} wrap="wrap">
          <Text size="xs" className="muted" aria-live="polite">
            {pages.isSuccess ? `${totalHits.toLocaleString()}${total?.totalHitsRelation === 'gte' ? '+' : ''} traces` : ' '}
            {liveInsert && live.fresh.length > 0 ? ` · ${live.fresh.length} new` : ''}
          </Text>
          {search.thread && !search.thread.includes(',') && (
            <Link to="/p/$projectId/threads/$threadId" params={{ projectId, threadId: search.thread }} className="back-link" style={{ fontSize: 12 }}>
              <IconMessages size={13} aria-hidden /> Read as a conversation
            </Link>
          )}
        </Group>
        <Group gap={6} wrap="wrap" className="list-views">
          <SavedViews
            views={views.data ?? []}
            current={current}
            modified={modified}
            canSave={can(session, 'traces:create')}
            onOpen={openView}
            onSaveNew={async (name) => {
              const made = await viewMutations.create.mutateAsync({ name, search: viewSearchOf(search), columns: savedColumns() });
              setSearch({ ...search, view: made.id });
            }}
            onUpdate={() => viewMutations.update.mutateAsync({ id: current!.id, body: { search: viewSearchOf(search), columns: savedColumns() } })}
            onDelete={async () => {
              await viewMutations.remove.mutateAsync(current!.id);
              setSearch({ ...search, view: undefined });
            }}
          />
          <ColumnsPicker columns={columns} onChange={setColumns} rows={rows} scoreConfigs={scoreConfigs} />
        </Group>
        <Group gap={6} wrap="nowrap">
          {pages.isSuccess && rows.length > 0 && (
            <>
              <AddToDatasetButton
                projectId={projectId}
                size="compact-sm"
                source={{ kind: 'choice', selected: [...selected], filter: importFilter, matching: Math.min(totalHits, 10_000) }}
              />
              <AddToQueueButton
                projectId={projectId}
                size="compact-sm"
                source={{ kind: 'choice', selected: [...selected], filter: importFilter, matching: totalHits }}
              />
            </>
          )}
          {selected.size > 0 && (
            <Text size="xs" className="muted nowrap">
              {selected.size} selected
            </Text>
          )}
          {!liveInsert && live.pendingCount > 0 && (
            <Button size="compact-xs" variant="light" onClick={() => void pages.refetch().then(live.reset)}>
              {live.pendingCount} new — show
            </Button>
          )}
          <Text size="xs" className="muted" title={live.ok ? 'New traces appear by themselves' : 'Not following new traces: the last check failed'} data-testid="traces-live" data-live={live.ok ? 'on' : 'off'}>
            <span aria-hidden style={{ color: live.ok ? '#2f9e44' : '#868e96' }}>●</span> Live
          </Text>
        </Group>
      </Group>
      {!pages.isSuccess ? (
        <Unloaded query={pages} failed="The traces could not be loaded" loading="Loading traces" />
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
          selected={selected}
          onSelect={setSelected}
          search={search}
          columns={columns}
          scoreConfigs={scoreConfigs}
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

const sameColumns = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);
function sameSearch(a: Record<string, string>, b: Record<string, string>) {
  const ka = Object.keys(a).filter((k) => a[k]);
  const kb = Object.keys(b).filter((k) => b[k]);
  return ka.length === kb.length && ka.every((k) => a[k] === b[k]);
}

function nextDirection(search: ListSearch, sort: ListSort): 'asc' | undefined {
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
    const conditions = searchConditions(request);
    const poll = async () => {
      try {
        const answer = await fetchNewTraces(projectId, { ...conditions, since: since.current ?? Number.MAX_SAFE_INTEGER, pageSize: 100 });
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
  selected: Set<string>;
  onSelect: (ids: Set<string>) => void;
  search: ListSearch;
  columns: string[];
  scoreConfigs: ScoreConfig[] | undefined;
  onSort: (sort: ListSort) => void;
  loadMore: () => void;
  loadingMore: boolean;
}

function TraceGrid({ placeKey, projectId, rows, freshIds, selected, onSelect, search, columns, scoreConfigs, onSort, loadMore, loadingMore }: GridProps) {
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
  const grid = gridOf(columns);
  // The selection's checkbox column comes first, whatever columns the user chose.
  const gridStyle = { '--list-cols': `22px ${grid.template}`, '--list-min': `${grid.minWidth + 32}px` } as CSSProperties;
  const sortHeader = (key: ListSort, label: string) => (
    <div role="columnheader" aria-sort={sort === key ? (dir === 'asc' ? 'ascending' : 'descending') : 'none'} className={key === 'time' ? 'c-time' : 'num ellipsis'}>
      <button type="button" onClick={() => onSort(key)} title={`Sort by ${key.startsWith('score:') ? label : label.toLowerCase()}`}>
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
    if ((e.target as HTMLElement).closest('a,button,input,label,.c-select')) return;
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
      <div className="list-head" role="row" aria-rowindex={1} style={gridStyle}>
        <div role="columnheader" className="c-select">
          <Checkbox
            size="xs"
            aria-label="Select the loaded traces"
            checked={rows.length > 0 && rows.every((r) => selected.has(r.trace_id))}
            onChange={(e) => onSelect(e.currentTarget.checked ? new Set(rows.map((r) => r.trace_id)) : new Set())}
          />
        </div>
        {columns.map((c) => {
          const d = columnDef(c)!;
          const title = columnTitle(c, scoreConfigs);
          const by = sortOf(c, scoreConfigs);
          return by ? (
            <Fragment key={c}>{sortHeader(by, title)}</Fragment>
          ) : (
            <div key={c} role="columnheader" className={d.numeric ? 'num ellipsis' : 'ellipsis'} title={title}>
              {title}
            </div>
          );
        })}
      </div>
      <div className="list-body" role="rowgroup" style={{ height: virtualizer.getTotalSize(), ...gridStyle }}>
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
              columns={columns}
              selected={selected.has(t.trace_id)}
              onToggle={(on) => {
                const next = new Set(selected);
                if (on) next.add(t.trace_id);
                else next.delete(t.trace_id);
                onSelect(next);
              }}
              onClick={(e) => open(e, t.trace_id)}
            />
          );
        })}
      </div>
      {loadingMore && (
        <Loading label="Loading more traces" size="xs" padding="xs" />
      )}
    </div>
  );
}

function TraceRow({
  trace: t,
  projectId,
  top,
  index,
  fresh,
  columns,
  selected,
  onToggle,
  onClick,
}: {
  trace: TraceSummary;
  projectId: string;
  top: number;
  index: number;
  fresh: boolean;
  columns: string[];
  selected: boolean;
  onToggle: (on: boolean) => void;
  onClick: (e: MouseEvent) => void;
}) {
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      className={`list-row${fresh ? ' is-new' : ''}`}
      data-started-at={t.timestamps.started_at}
      style={{ transform: `translateY(${top}px)` }}
      onClick={onClick}
      data-trace-id={t.trace_id}
      aria-selected={selected}
    >
      <div role="cell" className="c-select">
        <Checkbox size="xs" aria-label={`Select the trace ${t.trace_id}`} checked={selected} onChange={(e) => onToggle(e.currentTarget.checked)} />
      </div>
      {columns.map((c) => {
        const d = columnDef(c)!;
        return (
          <div key={c} role="cell" className={d.className} data-column={c}>
            {d.cell(t, projectId)}
          </div>
        );
      })}
    </div>
  );
}

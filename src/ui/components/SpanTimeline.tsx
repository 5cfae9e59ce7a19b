import { memo, useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { ActionIcon, Button, NativeSelect, Text, TextInput, Tooltip } from '@mantine/core';
import { useDebouncedValue, useElementSize } from '@mantine/hooks';
import { IconAlertTriangle, IconChevronDown, IconChevronRight, IconChevronUp, IconHourglassHigh, IconSearch } from '@tabler/icons-react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { SpanOutline as Span } from '../api/traces.ts';
import { formatDuration } from '../lib/format.ts';

const ROW_H = 28;

const TYPE_COLORS: Record<string, string> = {
  llm: '#5c7cfa',
  tool: '#12b886',
  agent: '#ae3ec9',
  rag: '#fd7e14',
  retriever: '#fd7e14',
  embedding: '#15aabf',
  chain: '#339af0',
  workflow: '#339af0',
  task: '#339af0',
  guardrail: '#e64980',
  evaluation: '#e64980',
  prompt: '#fab005',
};
export const typeColor = (type: string) => TYPE_COLORS[type] ?? '#868e96';

interface TreeIndex {
  /** Children of each span id ('' = roots), in start order. */
  children: Map<string, Span[]>;
  parent: Map<string, string>;
  byId: Map<string, Span>;
  start: number;
  end: number;
}

/** Parents and children of every span (a span whose parent is missing is a root). */
export function indexSpans(spans: Span[]): TreeIndex {
  const byId = new Map<string, Span>();
  for (const s of spans) byId.set(s.span_id, s);
  const children = new Map<string, Span[]>();
  const parent = new Map<string, string>();
  let start = Infinity;
  let end = -Infinity;
  for (const s of spans) {
    const p = s.parent_id && byId.has(s.parent_id) && s.parent_id !== s.span_id ? s.parent_id : '';
    if (p) parent.set(s.span_id, p);
    const list = children.get(p);
    if (list) list.push(s);
    else children.set(p, [s]);
    start = Math.min(start, s.timestamps.started_at);
    end = Math.max(end, s.timestamps.finished_at);
  }
  if (!Number.isFinite(start)) start = end = 0;
  return { children, parent, byId, start, end };
}

interface Row {
  span: Span;
  depth: number;
  hasChildren: boolean;
}

/** Rows of the expanded tree, depth first, without recursion (a 10,000-deep chain is a real trace shape). */
function visibleRows(index: TreeIndex, collapsed: Set<string>): Row[] {
  const rows: Row[] = [];
  const seen = new Set<string>();
  const stack: { span: Span; depth: number }[] = [...(index.children.get('') ?? [])].reverse().map((span) => ({ span, depth: 0 }));
  while (stack.length) {
    const { span, depth } = stack.pop()!;
    if (seen.has(span.span_id)) continue; // a parent cycle in bad data
    seen.add(span.span_id);
    const kids = index.children.get(span.span_id) ?? [];
    rows.push({ span, depth, hasChildren: kids.length > 0 });
    if (kids.length && !collapsed.has(span.span_id)) for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i], depth: depth + 1 });
  }
  return rows;
}

/** Every span of the tree, unfolded, in reading order: depth, place and time of its own. */
interface Outline {
  rows: Row[];
  order: Map<string, number>;
  /** Deepest level (1 = roots). */
  levels: number;
  /** Span ids with an error, in reading order. */
  errors: string[];
  /** Span ids by time of their own (duration less their children's), longest first. */
  slowest: string[];
  selfTime: Map<string, number>;
}

function outlineOf(index: TreeIndex): Outline {
  const rows = visibleRows(index, new Set());
  const order = new Map<string, number>();
  const selfTime = new Map<string, number>();
  let levels = 0;
  const errors: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const s = rows[i].span;
    order.set(s.span_id, i);
    levels = Math.max(levels, rows[i].depth + 1);
    if (s.error) errors.push(s.span_id);
    const own = s.timestamps.finished_at - s.timestamps.started_at;
    let children = 0;
    for (const c of index.children.get(s.span_id) ?? []) children += c.timestamps.finished_at - c.timestamps.started_at;
    selfTime.set(s.span_id, Math.max(0, own - children));
  }
  const slowest = rows.map((r) => r.span.span_id).sort((a, b) => selfTime.get(b)! - selfTime.get(a)! || order.get(a)! - order.get(b)!);
  return { rows, order, levels, errors, slowest, selfTime };
}

/** Whether a span's name, type or model contains the (lowercased) text. */
const matchesOutline = (s: Span, needle: string) => (s.name ?? '').toLowerCase().includes(needle) || s.type.toLowerCase().includes(needle) || (s.model ?? '').toLowerCase().includes(needle);

interface Props {
  index: TreeIndex;
  selectedId: string | null;
  onSelect: (spanId: string) => void;
  /**
   * Spans whose input, output, error message or attribute values contain the text (the server
   * reads them; the outline has none). Absent: the search covers names, types and models only
   * (a shared trace).
   */
  searchContents?: (text: string, signal: AbortSignal) => Promise<string[]>;
}

/** The span tree and the waterfall side by side, one virtualized list (they scroll together). */
export function SpanTimeline({ index, selectedId, onSelect, searchContents }: Props) {
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const rows = useMemo(() => visibleRows(index, collapsed), [index, collapsed]);
  const outline = useMemo(() => outlineOf(index), [index]);
  const finder = useFinder(index, outline, searchContents);
  const searchRef = useRef<HTMLInputElement>(null);
  const position = useMemo(() => new Map(rows.map((r, i) => [r.span.span_id, i])), [rows]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_H,
    // A jump far away mounts every row in view plus these: more makes each jump slower.
    overscan: 8,
    getItemKey: (i) => rows[i].span.span_id,
  });
  const total = Math.max(index.end - index.start, 1);

  const selectedRow = selectedId !== null ? position.get(selectedId) : undefined;
  // A span selected elsewhere (the URL, an annotation) inside a folded branch: unfold its ancestors.
  useEffect(() => {
    if (selectedId === null || position.has(selectedId) || !index.byId.has(selectedId)) return;
    setCollapsed((c) => {
      const next = new Set(c);
      for (let p = index.parent.get(selectedId); p; p = index.parent.get(p)) next.delete(p);
      return next;
    });
  }, [selectedId, position, index]);
  /** The row a jump of this tree scrolled to before selecting it (jumpTo). */
  const scrolledTo = useRef<number | null>(null);
  // The virtualizer is one instance for the component's life: this runs when the selected row
  // moves. Not again after a jump: scrolling measures the page, and measured right after the
  // new selection's render (its detail pane) that is a whole layout, most of a jump's time.
  useEffect(() => {
    if (selectedRow === undefined) return;
    if (scrolledTo.current === selectedRow) {
      scrolledTo.current = null;
      return;
    }
    virtualizer.scrollToIndex(selectedRow, { align: 'auto' });
  }, [selectedRow, virtualizer]);

  const toggle = useCallback((id: string) => {
    setCollapsed((c) => {
      const next = new Set(c);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);

  const { ref: headRef, width: headWidth } = useElementSize();

  /**
   * Selects a span of this tree, scrolling to it first: the rows it lands among are drawn in
   * the same frame as the selection (the effect above would scroll only after that render,
   * and draw them a frame or two later).
   */
  const jumpTo = (id: string) => {
    const at = position.get(id);
    if (at !== undefined) {
      virtualizer.scrollToIndex(at, { align: 'auto' });
      scrolledTo.current = at;
    }
    onSelect(id);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (!rows.length) return;
    const i = selectedRow ?? -1;
    const row = i >= 0 ? rows[i] : null;
    const go = (n: number) => jumpTo(rows[Math.max(0, Math.min(rows.length - 1, n))].span.span_id);
    switch (e.key) {
      case 'ArrowDown':
        go(i + 1);
        break;
      case 'ArrowUp':
        go(i <= 0 ? 0 : i - 1);
        break;
      case 'Home':
        go(0);
        break;
      case 'End':
        go(rows.length - 1);
        break;
      case 'PageDown':
        go(i + 15);
        break;
      case 'PageUp':
        go(i - 15);
        break;
      case 'ArrowRight':
        if (!row) go(0);
        else if (row.hasChildren && collapsed.has(row.span.span_id)) toggle(row.span.span_id);
        else if (row.hasChildren) go(i + 1);
        break;
      case 'n':
      case 'N':
        if (e.ctrlKey || e.metaKey || e.altKey || !finder.matches.length) return;
        step(e.key === 'N' ? -1 : 1);
        break;
      case '/':
        searchRef.current?.focus();
        break;
      case 'ArrowLeft':
        if (!row) break;
        if (row.hasChildren && !collapsed.has(row.span.span_id)) toggle(row.span.span_id);
        else {
          const p = index.parent.get(row.span.span_id);
          if (p) onSelect(p);
        }
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  // Where the Slowest button's walk down the list is: the rank it last jumped to, while that
  // span is still the one selected. The selected span's own rank is no start (the root, selected
  // when the page opens, would send the first press past the slowest spans).
  const [slowWalk, setSlowWalk] = useState<number | null>(null);
  const slowRank = slowWalk !== null && selectedId !== null && outline.slowest[slowWalk] === selectedId ? slowWalk : -1;
  /** The next (or previous) span of a list in reading order after the selected one, wrapping. */
  const nextIn = (list: string[], direction: 1 | -1): string | undefined => {
    if (!list.length) return undefined;
    const at = selectedId !== null ? (outline.order.get(selectedId) ?? -1) : -1;
    if (direction === 1) return list.find((id) => outline.order.get(id)! > at) ?? list[0];
    for (let i = list.length - 1; i >= 0; i--) if (outline.order.get(list[i])! < at) return list[i];
    return list[list.length - 1];
  };
  const step = (direction: 1 | -1) => {
    const id = nextIn(finder.matches, direction);
    if (id !== undefined) jumpTo(id);
  };
  const nextError = () => {
    const id = nextIn(outline.errors, 1);
    if (id !== undefined) jumpTo(id);
  };
  // Slowest: the span with most time of its own, then (pressed again while it is selected) the next.
  const slowest = () => {
    const rank = slowRank >= 0 ? (slowRank + 1) % outline.slowest.length : 0;
    const id = outline.slowest[rank];
    if (id === undefined) return;
    setSlowWalk(rank);
    jumpTo(id);
  };
  const showLevels = (levels: number | null) => {
    if (levels === null) return setCollapsed(new Set());
    const next = new Set<string>();
    for (const r of outline.rows) if (r.hasChildren && r.depth >= levels - 1) next.add(r.span.span_id);
    setCollapsed(next);
    // A selected span folded away: its ancestor on the last level shown takes the selection
    // (else the selection would unfold its branch again).
    if (selectedId === null || !outline.order.has(selectedId)) return;
    let id = selectedId;
    while (outline.rows[outline.order.get(id)!].depth > levels - 1) id = index.parent.get(id)!;
    if (id !== selectedId) onSelect(id);
  };
  const matchIndex = selectedId !== null && finder.matchSet.has(selectedId) ? finder.matches.indexOf(selectedId) : -1;

  const ticks = chooseTicks(total, headWidth);
  return (
    <section className="timeline" aria-label="Spans">
      <div className="timeline-tools" role="search" aria-label="Find spans">
        <TextInput
          ref={searchRef}
          size="xs"
          className="timeline-find"
          aria-label="Find spans by name, type, model, input, output, error or attribute value"
          placeholder="Find spans (name, model, input, output, error, attribute)"
          leftSection={<IconSearch size={14} aria-hidden />}
          value={finder.text}
          onChange={(e) => finder.setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              step(e.shiftKey ? -1 : 1);
            } else if (e.key === 'Escape') finder.setText('');
          }}
          data-testid="span-find"
        />
        <Text size="xs" className="muted nowrap" aria-live="polite" data-testid="span-find-count" miw={64}>
          {finder.text.trim() ? `${matchIndex >= 0 ? `${matchIndex + 1} of ` : ''}${finder.matches.length.toLocaleString()}${finder.truncated ? '+' : ''} found${finder.pending ? '…' : ''}` : ''}
        </Text>
        <Tooltip label="Previous match (Shift+Enter, N)">
          <ActionIcon size="md" variant="default" aria-label="Previous match" onClick={() => step(-1)} disabled={!finder.matches.length}>
            <IconChevronUp size={14} />
          </ActionIcon>
        </Tooltip>
        <Tooltip label="Next match (Enter, n)">
          <ActionIcon size="md" variant="default" aria-label="Next match" onClick={() => step(1)} disabled={!finder.matches.length}>
            <IconChevronDown size={14} />
          </ActionIcon>
        </Tooltip>
        <Button size="compact-xs" variant="default" color="red" leftSection={<IconAlertTriangle size={13} color="#c92a2a" aria-hidden />} onClick={nextError} disabled={!outline.errors.length} data-testid="next-error">
          Next error{outline.errors.length ? ` (${outline.errors.length})` : ''}
        </Button>
        <Tooltip label="The span with most time of its own (its duration less its children's); again for the next">
          <Button size="compact-xs" variant="default" leftSection={<IconHourglassHigh size={13} aria-hidden />} onClick={slowest} data-testid="slowest-span">
            Slowest{slowRank >= 0 ? ` #${slowRank + 1}` : ''}
          </Button>
        </Tooltip>
        <NativeSelect
          size="xs"
          aria-label="Levels shown"
          className="timeline-levels"
          value=""
          onChange={(e) => showLevels(e.currentTarget.value === 'all' ? null : Number(e.currentTarget.value))}
          data={[{ value: '', label: 'Levels…', disabled: true }, { value: 'all', label: 'Expand all' }, ...Array.from({ length: Math.min(outline.levels - 1, 12) }, (_, i) => ({ value: String(i + 1), label: `Show ${i + 1} level${i ? 's' : ''}` }))]}
          data-testid="span-levels"
        />
      </div>
      <div className="timeline-head" aria-hidden>
        <div style={{ padding: '6px 10px' }}>
          {index.byId.size.toLocaleString()} span{index.byId.size === 1 ? '' : 's'} · ←/→ fold, ↑/↓ move, n/N match
        </div>
        <div style={{ position: 'relative', marginRight: 8 }} ref={headRef} data-testid="timeline-ticks">
          {ticks.map((t) => (
            <span key={t.at} className="tick" style={{ left: `${(t.at / total) * 100}%`, transform: t.at === 0 ? undefined : 'translateX(-50%)', paddingLeft: t.at === 0 ? 4 : 0 }}>
              {t.label}
            </span>
          ))}
        </div>
      </div>
      <div
        className="timeline-scroll"
        ref={scrollRef}
        role="tree"
        aria-label="Span tree and timeline"
        tabIndex={0}
        aria-activedescendant={selectedId !== null && selectedRow !== undefined ? rowDomId(selectedId) : undefined}
        onKeyDown={onKeyDown}
        data-testid="span-tree"
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const r = rows[item.index];
            return (
              <SpanRow
                key={item.key}
                row={r}
                top={item.start}
                selected={r.span.span_id === selectedId}
                match={finder.matchSet.has(r.span.span_id) ? finder.needle : null}
                expanded={r.hasChildren ? !collapsed.has(r.span.span_id) : undefined}
                left={((r.span.timestamps.started_at - index.start) / total) * 100}
                width={((r.span.timestamps.finished_at - r.span.timestamps.started_at) / total) * 100}
                onSelect={onSelect}
                onToggle={toggle}
                index={item.index}
                count={rows.length}
              />
            );
          })}
        </div>
      </div>
    </section>
  );
}

export const rowDomId = (spanId: string) => `span-row-${spanId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

interface RowProps {
  row: Row;
  top: number;
  selected: boolean;
  /** The search text when this span matches it (highlighted where it is in the name, type or model). */
  match: string | null;
  expanded: boolean | undefined;
  left: number;
  width: number;
  index: number;
  count: number;
  onSelect: (id: string) => void;
  onToggle: (id: string) => void;
}

const SpanRow = memo(function SpanRow({ row, top, selected, match, expanded, left, width, index, count, onSelect, onToggle }: RowProps) {
  const s = row.span;
  const duration = s.timestamps.finished_at - s.timestamps.started_at;
  const color = typeColor(s.type);
  const barWidth = Math.max(width, 0.25);
  // A bar reaching the right edge takes its label before it, or, when it starts near the left
  // edge too (a root span), inside it: before it the label would cover the span's name.
  const labelBefore = left + barWidth > 80 && left >= 20;
  const labelInBar = left + barWidth > 80 && left < 20;
  return (
    <div
      id={rowDomId(s.span_id)}
      className={`span-row${match !== null ? ' is-match' : ''}`}
      role="treeitem"
      aria-level={row.depth + 1}
      aria-selected={selected}
      aria-expanded={expanded}
      aria-setsize={count}
      aria-posinset={index + 1}
      aria-label={`${s.type} ${s.name ?? s.span_id}${s.model ? ` ${s.model}` : ''}, ${formatDuration(duration)}${s.error ? ', error' : ''}`}
      style={{ transform: `translateY(${top}px)` }}
      onClick={() => onSelect(s.span_id)}
      data-span-id={s.span_id}
    >
      <div className="span-name" style={{ paddingLeft: 6 + Math.min(row.depth, 32) * 14 }}>
        {row.hasChildren ? (
          <span
            className="span-toggle"
            aria-hidden
            onClick={(e) => {
              e.stopPropagation();
              onToggle(s.span_id);
            }}
          >
            {expanded ? <IconChevronDown size={13} /> : <IconChevronRight size={13} />}
          </span>
        ) : (
          <span className="span-toggle" aria-hidden />
        )}
        <span className="type-dot" style={{ background: color }} aria-hidden />
        <span className="mono span-type">{mark(s.type, match)}</span>
        <span className="ellipsis" title={s.name ?? s.span_id}>
          {mark(s.name ?? s.span_id, match)}
        </span>
        {s.model && (
          <span className="ellipsis" style={{ color: '#5f3dc4', fontSize: 11, flex: '0 1 auto', maxWidth: 140 }} title={s.model}>
            {mark(s.model, match)}
          </span>
        )}
        {s.error && <IconAlertTriangle size={13} color="#e03131" style={{ flex: 'none' }} aria-hidden />}
      </div>
      <div className="span-bar-cell" aria-hidden>
        <div className={`span-bar${s.error ? ' err' : ''}`} style={{ left: `${left}%`, width: `${barWidth}%`, background: color }} />
        <span
          className={`span-bar-label${labelInBar ? ' in-bar' : ''}`}
          style={labelBefore ? { right: `${100 - left + 0.5}%` } : labelInBar ? { left: `calc(${left}% + 4px)` } : { left: `calc(${left + barWidth}% + 4px)` }}
        >
          {formatDuration(duration)}
        </span>
      </div>
    </div>
  );
});

/** The text with the first place it contains the needle marked (a span found by an attribute has none). */
function mark(text: string, needle: string | null): ReactNode {
  if (!needle) return text;
  const at = text.toLowerCase().indexOf(needle);
  if (at < 0) return text;
  return (
    <>
      {text.slice(0, at)}
      <mark>{text.slice(at, at + needle.length)}</mark>
      {text.slice(at + needle.length)}
    </>
  );
}

/**
 * The span search: names, types and models at once from the outline; inputs, outputs, error
 * messages and attribute values from the server a moment after typing stops; matches in
 * reading order.
 */
function useFinder(index: TreeIndex, outline: Outline, searchContents: Props['searchContents']) {
  const [text, setText] = useState('');
  const needle = text.trim().toLowerCase();
  const [debounced] = useDebouncedValue(needle, 250);
  const [remote, setRemote] = useState<{ needle: string; ids: string[]; truncated: boolean } | null>(null);
  useEffect(() => {
    if (!searchContents || !debounced) return;
    const abort = new AbortController();
    searchContents(debounced, abort.signal).then(
      (ids) => setRemote({ needle: debounced, ids, truncated: ids.length >= 10_000 }),
      () => undefined,
    );
    return () => abort.abort();
  }, [debounced, searchContents]);
  const local = useMemo(() => (needle ? outline.rows.filter((r) => matchesOutline(r.span, needle)).map((r) => r.span.span_id) : []), [needle, outline]);
  const matches = useMemo(() => {
    if (!remote || remote.needle !== needle || !remote.ids.length) return local;
    const all = new Set(local);
    for (const id of remote.ids) if (index.byId.has(id)) all.add(id);
    return [...all].sort((a, b) => outline.order.get(a)! - outline.order.get(b)!);
  }, [local, remote, needle, index, outline]);
  const matchSet = useMemo(() => new Set(matches), [matches]);
  return {
    text,
    setText,
    needle,
    matches,
    matchSet,
    truncated: !!remote && remote.needle === needle && remote.truncated,
    pending: !!searchContents && !!needle && remote?.needle !== needle,
  };
}

/** Steps a waterfall's time axis may take: round durations, from a millisecond to a day. */
const TICK_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000];
/** A tick label's width at the axis's 11 px font, with room on both sides. */
const labelWidth = (label: string) => label.length * 6.5 + 16;

/**
 * Ticks of the time axis: the smallest round step whose labels fit the axis's width side by
 * side (a long trace on a narrow screen gets fewer, further apart), none past the right edge.
 */
function chooseTicks(total: number, width: number): { at: number; label: string }[] {
  if (!(total > 0) || !(width > 0)) return [{ at: 0, label: '0' }];
  for (const step of TICK_STEPS) {
    const count = Math.floor(total / step);
    if (count > 40) continue;
    const values = Array.from({ length: count + 1 }, (_, i) => i * step);
    const widest = Math.max(...values.map((v) => labelWidth(tickLabel(v))));
    if ((step / total) * width < widest) continue;
    // The last label is centred on its tick: drop it when it would run past the edge.
    return values
      .filter((v) => v === 0 || (v / total) * width + labelWidth(tickLabel(v)) / 2 <= width)
      .map((v) => ({ at: v, label: tickLabel(v) }));
  }
  return [{ at: 0, label: '0' }];
}

/** A round duration, short: "0", "500 ms", "15 s", "1 min 30 s", "2 h". */
function tickLabel(ms: number): string {
  if (ms === 0) return '0';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min${ms % 60_000 ? ` ${(ms % 60_000) / 1000} s` : ''}`;
  return `${Math.floor(ms / 3_600_000)} h${ms % 3_600_000 ? ` ${(ms % 3_600_000) / 60_000} min` : ''}`;
}

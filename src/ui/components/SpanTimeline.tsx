import { memo, useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Text } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { IconAlertTriangle, IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { SpanOutline as Span } from '../api/types.ts';
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

interface Props {
  index: TreeIndex;
  selectedId: string | null;
  onSelect: (spanId: string) => void;
}

/** The span tree and the waterfall side by side, one virtualized list (they scroll together). */
export function SpanTimeline({ index, selectedId, onSelect }: Props) {
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const rows = useMemo(() => visibleRows(index, collapsed), [index, collapsed]);
  const position = useMemo(() => new Map(rows.map((r, i) => [r.span.span_id, i])), [rows]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_H,
    overscan: 20,
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
  // The virtualizer is one instance for the component's life: this runs when the selected row moves.
  useEffect(() => {
    if (selectedRow !== undefined) virtualizer.scrollToIndex(selectedRow, { align: 'auto' });
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

  const onKeyDown = (e: KeyboardEvent) => {
    if (!rows.length) return;
    const i = selectedRow ?? -1;
    const row = i >= 0 ? rows[i] : null;
    const go = (n: number) => onSelect(rows[Math.max(0, Math.min(rows.length - 1, n))].span.span_id);
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

  const ticks = chooseTicks(total, headWidth);
  return (
    <section className="timeline" aria-label="Spans">
      <div className="timeline-head" aria-hidden>
        <div style={{ padding: '6px 10px' }}>
          {index.byId.size.toLocaleString()} span{index.byId.size === 1 ? '' : 's'} · ←/→ fold, ↑/↓ move
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
  expanded: boolean | undefined;
  left: number;
  width: number;
  index: number;
  count: number;
  onSelect: (id: string) => void;
  onToggle: (id: string) => void;
}

const SpanRow = memo(function SpanRow({ row, top, selected, expanded, left, width, index, count, onSelect, onToggle }: RowProps) {
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
      className="span-row"
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
        <Text span size="xs" className="mono" style={{ flex: "none", color: "#495057" }}>
          {s.type}
        </Text>
        <span className="ellipsis" title={s.name ?? s.span_id}>
          {s.name ?? s.span_id}
        </span>
        {s.model && (
          <span className="ellipsis" style={{ color: '#5f3dc4', fontSize: 11, flex: '0 1 auto', maxWidth: 140 }} title={s.model}>
            {s.model}
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

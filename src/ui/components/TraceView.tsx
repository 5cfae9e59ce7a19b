import { useMemo, useState, type ReactNode } from 'react';
import { Alert, Badge, Group, Spoiler, Tabs, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconShieldLock } from '@tabler/icons-react';
import { useSpan, useSpanSearch, type TraceSource } from '../api/traces.ts';
import type { SpanOutline, TraceOutline } from '../api/traces.ts';
import { formatCost, formatDuration, formatFullTime, formatTokens } from '../lib/format.ts';
import { Annotations } from './Annotations.tsx';
import { Copy } from './Copy.tsx';
import { Evaluations } from './Evaluations.tsx';
import { SpanDetail } from './SpanDetail.tsx';
import { SpanTimeline, indexSpans } from './SpanTimeline.tsx';
import { Loading } from './QueryState.tsx';

interface Props {
  trace: TraceOutline;
  /** Where the selected span is read whole from. */
  source: TraceSource;
  /** Signed in: annotations and links; absent on the public page. */
  project?: { id: string; threadLink: (threadId: string) => ReactNode; userLink: (userId: string) => ReactNode };
  selectedSpanId: string | null;
  onSelectSpan: (spanId: string) => void;
  actions?: ReactNode;
  /** Controls shown on the selected span's detail (signed in: add it to a dataset). */
  spanActions?: (spanId: string) => ReactNode;
}

/** A trace: summary on top, span tree with waterfall beside the selected span's detail. */
export function TraceView({ trace, source, project, selectedSpanId, onSelectSpan, actions, spanActions }: Props) {
  const index = useMemo(() => indexSpans(trace.spans), [trace.spans]);
  const selected: SpanOutline | null = (selectedSpanId !== null ? index.byId.get(selectedSpanId) : undefined) ?? index.children.get('')?.[0] ?? null;
  const [tab, setTab] = useState<string | null>('span');
  const searchContents = useSpanSearch(source);
  return (
    <div className="trace-page">
      <TraceSummary trace={trace} project={project} actions={actions} />
      <div className="trace-split">
        <SpanTimeline index={index} selectedId={selected?.span_id ?? null} onSelect={onSelectSpan} searchContents={searchContents} />
        <div className="detail-pane">
          <Tabs value={tab} onChange={setTab} keepMounted={false}>
            <Tabs.List px="sm" style={{ position: 'sticky', top: 0, background: '#fff', zIndex: 1 }}>
              <Tabs.Tab value="span">Span</Tabs.Tab>
              <Tabs.Tab value="evaluations">Evaluations ({trace.evaluations.length})</Tabs.Tab>
              {project && <Tabs.Tab value="annotations">Annotations</Tabs.Tab>}
            </Tabs.List>
            <Tabs.Panel value="span">
              {selected ? (
                <SelectedSpan source={source} outline={selected} actions={spanActions?.(selected.span_id)} />
              ) : (
                <Text p="md" size="sm" className="muted">
                  This trace has no spans.
                </Text>
              )}
            </Tabs.Panel>
            <Tabs.Panel value="evaluations">
              <Evaluations evaluations={trace.evaluations} />
            </Tabs.Panel>
            {project && (
              <Tabs.Panel value="annotations">
                <Annotations
                  projectId={project.id}
                  traceId={trace.trace_id}
                  selected={selected}
                  spanName={(id) => index.byId.get(id)?.name ?? null}
                  onSelectSpan={(id) => {
                    onSelectSpan(id);
                    setTab('span');
                  }}
                />
              </Tabs.Panel>
            )}
          </Tabs>
        </div>
      </div>
    </div>
  );
}

/** The selected span, read whole (the outline has no payloads). */
function SelectedSpan({ source, outline, actions }: { source: TraceSource; outline: SpanOutline; actions?: ReactNode }) {
  const span = useSpan(source, outline.span_id);
  if (span.data) return <SpanDetail span={span.data} actions={actions} />;
  if (span.isError) {
    return (
      <Alert color="red" m="md" title={`Span ${outline.name ?? outline.span_id}`}>
        {span.error.message}
      </Alert>
    );
  }
  return (
    <Group p="md" gap="xs">
      <Loading label="Loading the span" size="xs" inline />
      <Text size="sm">{outline.name ?? outline.span_id}</Text>
    </Group>
  );
}

/** A labelled figure of a trace's header (the trace page, a thread's turns). */
export function Metric({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" className="muted" component="div">
        {label}
      </Text>
      <Text size="sm" fw={600} component="div" className="nowrap">
        {children}
      </Text>
    </div>
  );
}

function TraceSummary({ trace, project, actions }: Pick<Props, 'trace' | 'project' | 'actions'>) {
  const m = trace.metrics;
  const meta = trace.metadata as Record<string, unknown> & { user_id?: string; thread_id?: string; customer_id?: string; labels?: string[] };
  const { user_id, thread_id, customer_id, labels = [], ...rest } = meta;
  const other = Object.entries(rest).filter(([, v]) => v !== null && v !== undefined && v !== '');
  return (
    <section className="trace-top" aria-label="Trace summary">
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Group gap={6} wrap="nowrap" style={{ minWidth: 0, flex: '1 1 300px' }}>
          <Title order={1} size="h4" className="ellipsis mono" title={trace.trace_id}>
            Trace {trace.trace_id}
          </Title>
          <Copy value={trace.trace_id} label="Copy trace id" />
          {trace.error && (
            <Badge color="red" variant="light" leftSection={<IconAlertTriangle size={12} />}>
              error
            </Badge>
          )}
        </Group>
        {actions}
      </Group>
      <Group gap="xl" wrap="wrap" data-testid="trace-metrics" style={{ rowGap: 6 }}>
        <Metric label="Started">{formatFullTime(trace.timestamps.started_at)}</Metric>
        <Metric label="Duration">{formatDuration(m.total_time_ms)}</Metric>
        <Metric label="Tokens">
          {m.prompt_tokens === null && m.completion_tokens === null
            ? '–'
            : `${m.tokens_estimated ? '~' : ''}${formatTokens(m.prompt_tokens)} → ${formatTokens(m.completion_tokens)}`}
        </Metric>
        <Metric label="Cost">{formatCost(m.total_cost)}</Metric>
        <Metric label="Spans">{trace.spans.length.toLocaleString()}</Metric>
        {m.first_token_ms !== null && <Metric label="First token">{formatDuration(m.first_token_ms)}</Metric>}
        {user_id && <Metric label="User">{project ? project.userLink(user_id) : user_id}</Metric>}
        {thread_id && <Metric label="Thread">{project ? project.threadLink(thread_id) : thread_id}</Metric>}
        {customer_id && <Metric label="Customer">{customer_id}</Metric>}
        {labels.length > 0 && (
          <Metric label="Labels">
            <Group gap={4}>
              {labels.map((l) => (
                <Badge key={l} size="sm" variant="light" color="gray" tt="none">
                  {l}
                </Badge>
              ))}
            </Group>
          </Metric>
        )}
      </Group>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(280px, 1fr))', gap: 12 }}>
        <IoBox label="Input" text={trace.input.value} id="trace-input" />
        <IoBox label="Output" text={trace.output.value} id="trace-output" />
      </div>
      {trace.error && (
        <Text size="sm" c="red.8" style={{ overflowWrap: 'anywhere' }}>
          <b>Error:</b> {trace.error.message}
        </Text>
      )}
      {trace.redactions && (
        <Text size="sm" className="muted" data-testid="trace-redactions" style={{ overflowWrap: 'anywhere' }}>
          <IconShieldLock size={14} aria-hidden style={{ verticalAlign: -2, marginRight: 4 }} />
          {trace.redactions.summary}
        </Text>
      )}
      {other.length > 0 && (
        <div className="meta-chips" aria-label="Metadata">
          {other.map(([k, v]) => (
            <span key={k} className="mono">
              <b>{k}</b> {typeof v === 'string' ? v : JSON.stringify(v)}
            </span>
          ))}
        </div>
      )}
    </section>
  );
}

function IoBox({ label, text, id }: { label: string; text: string; id: string }) {
  return (
    <div style={{ minWidth: 0 }}>
      <Text size="xs" fw={600} c="#495057" tt="uppercase" mb={2}>
        {label}
      </Text>
      <Spoiler maxHeight={60} showLabel="Show all" hideLabel="Show less">
        <pre className="textblock" id={id} style={{ background: '#f8f9fa', padding: '6px 8px', borderRadius: 4 }}>
          {text || <span className="muted">(none)</span>}
        </pre>
      </Spoiler>
    </div>
  );
}

import { lazy, Suspense, useMemo, useState, type ReactNode } from 'react';
import { Badge, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import type { ChatMessage, Span, SpanPayload } from '../api/traces.ts';
import { formatCost, formatDuration, formatFullTime } from '../lib/format.ts';
import { typeColor } from './SpanTimeline.tsx';

const JsonEditor = lazy(() => import('./JsonEditor.tsx'));

/** Pretty JSON in CodeMirror (loaded on first use); plain text while it loads. */
export function JsonView({ value, label, maxHeight = 420 }: { value: unknown; label: string; maxHeight?: number }) {
  const text = useMemo(() => (typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? 'null'), [value]);
  return (
    <Suspense fallback={<pre className="json-fallback">{text.slice(0, 20_000)}</pre>}>
      <JsonEditor text={text} label={label} maxHeight={maxHeight} />
    </Suspense>
  );
}

function Section({ title, children, right }: { title: string; children: ReactNode; right?: ReactNode }) {
  return (
    <section>
      <Group justify="space-between" mb={6} gap="xs">
        <Title order={3} size="h6" tt="uppercase" c="#495057" style={{ letterSpacing: 0.4 }}>
          {title}
        </Title>
        {right}
      </Group>
      {children}
    </section>
  );
}

/** A span's input or output: a conversation for chat messages, text as text, JSON otherwise. */
export function PayloadView({ payload, label }: { payload: SpanPayload | undefined; label: string }) {
  if (!payload) return <Text size="sm" className="muted">None</Text>;
  if (payload.type === 'chat_messages' && Array.isArray(payload.value)) return <ChatView messages={payload.value} />;
  if (payload.type === 'text' && typeof payload.value === 'string') return <pre className="textblock">{payload.value || <span className="muted">(empty)</span>}</pre>;
  return <JsonView value={payload.value} label={label} />;
}

const ROLE_LABELS: Record<string, string> = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool', function: 'Function', developer: 'Developer' };

export function ChatView({ messages }: { messages: ChatMessage[] }) {
  return (
    <Stack gap={6} data-testid="chat-view">
      {messages.map((m, i) => (
        <div key={i} className={`chat-msg role-${m.role}`}>
          <Group gap={6} mb={4}>
            <Text size="xs" fw={700} tt="uppercase" c="#343a40">
              {ROLE_LABELS[m.role] ?? m.role}
            </Text>
            {m.name && <Text size="xs" className="muted">{m.name}</Text>}
            {m.tool_call_id && (
              <Text size="xs" className="muted mono">
                result of {m.tool_call_id}
              </Text>
            )}
          </Group>
          <MessageContent content={m.content} />
          {Array.isArray(m.tool_calls) && m.tool_calls.length > 0 && (
            <Stack gap={4} mt={6}>
              {m.tool_calls.map((call, j) => (
                <ToolCall key={j} call={call} />
              ))}
            </Stack>
          )}
        </div>
      ))}
    </Stack>
  );
}

function MessageContent({ content }: { content: ChatMessage['content'] }) {
  if (content === null || content === undefined || content === '') return null;
  if (typeof content === 'string') return <pre className="textblock">{content}</pre>;
  return (
    <Stack gap={4}>
      {content.map((part, i) => {
        const p = part as { type?: string; text?: string; image_url?: { url?: string } | string };
        if ((p.type === 'text' || p.type === 'input_text' || p.type === 'output_text') && typeof p.text === 'string') {
          return (
            <pre key={i} className="textblock">
              {p.text}
            </pre>
          );
        }
        if (p.type === 'image_url') {
          const url = typeof p.image_url === 'string' ? p.image_url : p.image_url?.url;
          return (
            <Text key={i} size="xs" className="muted">
              [image{url && !url.startsWith('data:') ? `: ${url}` : ''}]
            </Text>
          );
        }
        return <JsonView key={i} value={part} label="message part" maxHeight={240} />;
      })}
    </Stack>
  );
}

function ToolCall({ call }: { call: unknown }) {
  const c = call as { id?: string; function?: { name?: string; arguments?: unknown }; name?: string; arguments?: unknown };
  const name = c.function?.name ?? c.name ?? 'tool';
  const raw = c.function?.arguments ?? c.arguments;
  let args: unknown = raw;
  if (typeof raw === 'string') {
    try {
      args = JSON.parse(raw);
    } catch {
      args = raw;
    }
  }
  return (
    <Paper withBorder p={6} radius="sm" bg="#f8f9fa">
      <Group gap={6} mb={4}>
        <Badge size="xs" color="teal" variant="light">
          tool call
        </Badge>
        <Text size="sm" fw={600} className="mono">
          {name}
        </Text>
        {c.id && (
          <Text size="xs" className="muted mono">
            {c.id}
          </Text>
        )}
      </Group>
      {typeof args === 'string' ? <pre className="textblock mono">{args}</pre> : <JsonView value={args} label={`arguments of ${name}`} maxHeight={240} />}
    </Paper>
  );
}

/** Every fact of the selected span. */
export function SpanDetail({ span, actions }: { span: Span; actions?: ReactNode }) {
  const t = span.timestamps;
  const m = span.metrics;
  const duration = t.finished_at - t.started_at;
  const firstToken = t.first_token_at !== null ? t.first_token_at - t.started_at : null;
  const params = Object.entries(span.params ?? {});
  const truncated = truncatedKeys(span);
  return (
    <Stack gap="md" p="md" data-testid="span-detail">
      <div>
        <Group gap={8} wrap="nowrap" align="center">
          <Badge color="gray" variant="outline" leftSection={<span className="type-dot" style={{ background: typeColor(span.type) }} />} style={{ flex: 'none' }}>
            {span.type}
          </Badge>
          <Title order={2} size="h4" className="ellipsis" title={span.name ?? span.span_id}>
            {span.name ?? span.span_id}
          </Title>
        </Group>
        <Text size="xs" className="muted mono" mt={4}>
          span {span.span_id} · started {formatFullTime(t.started_at)}
        </Text>
        {actions && (
          <Group gap="xs" mt={6}>
            {actions}
          </Group>
        )}
      </div>

      <dl className="kv" data-testid="span-metrics">
        <dt>Duration</dt>
        <dd>{formatDuration(duration)}</dd>
        {span.model && (
          <>
            <dt>Model</dt>
            <dd className="mono">
              {span.model}
              {span.vendor ? ` · ${span.vendor}` : ''}
            </dd>
          </>
        )}
        {firstToken !== null && (
          <>
            <dt>First token</dt>
            <dd>{formatDuration(firstToken)}</dd>
          </>
        )}
        {(m.prompt_tokens !== null || m.completion_tokens !== null) && (
          <>
            <dt>Tokens</dt>
            <dd data-testid="span-tokens">
              {m.prompt_tokens ?? 0} prompt
              {m.cached_input_tokens ? ` (${m.cached_input_tokens} cached)` : ''} · {m.completion_tokens ?? 0} completion
              {m.reasoning_tokens ? ` (${m.reasoning_tokens} reasoning)` : ''}
              {m.tokens_estimated && (
                <Badge size="xs" variant="outline" color="gray.7" ml={6} title="Counted with a tokenizer: the SDK reported no usage">
                  estimated
                </Badge>
              )}
            </dd>
          </>
        )}
        {m.cost !== null && m.cost !== undefined && (
          <>
            <dt>Cost</dt>
            <dd>{formatCost(m.cost)}</dd>
          </>
        )}
        {span.status && span.status.code !== 'unset' && (
          <>
            <dt>Status</dt>
            <dd>
              {span.status.code}
              {span.status.message ? `: ${span.status.message}` : ''}
            </dd>
          </>
        )}
      </dl>

      {truncated.length > 0 && (
        <Paper withBorder p={8} radius="sm" bg="#fff9db" data-testid="span-truncated">
          <Text size="sm" fw={600}>
            Truncated on arrival
          </Text>
          <Text size="xs">
            These values were larger than the server's limit (SPYGLASS_MAX_ATTRIBUTE_BYTES) and keep only their first part:{' '}
            <span className="mono">{truncated.join(', ')}</span>
          </Text>
        </Paper>
      )}

      {span.error && (
        <Section title="Error">
          <Text size="sm" c="red.8" fw={600} mb={4} style={{ overflowWrap: 'anywhere' }}>
            {span.error.message}
          </Text>
          {span.error.stacktrace.length > 0 && <pre className="stack mono">{span.error.stacktrace.join('\n')}</pre>}
        </Section>
      )}

      {params.length > 0 && (
        <Section title="Parameters">
          <dl className="kv">
            {params.map(([k, v]) => (
              <ParamRow key={k} name={k} value={v} />
            ))}
          </dl>
        </Section>
      )}

      <Section title="Input">
        <PayloadView payload={span.input} label="span input" />
      </Section>
      <Section title="Output">
        <PayloadView payload={span.output} label="span output" />
      </Section>

      {span.events && span.events.length > 0 && (
        <Section title={`Events (${span.events.length})`}>
          <Stack gap={4}>
            {span.events.map((e, i) => (
              <Paper key={i} withBorder p={6} radius="sm">
                <Group gap={8}>
                  <Text size="sm" fw={600} className="mono">
                    {e.name}
                  </Text>
                  <Text size="xs" className="muted">
                    +{formatDuration(e.time - t.started_at)}
                  </Text>
                </Group>
                {Object.keys(e.attributes).length > 0 && <AttributeTable attributes={e.attributes} filter="" />}
              </Paper>
            ))}
          </Stack>
        </Section>
      )}

      <Attributes span={span} />
    </Stack>
  );
}

/** The keys the server cut to its size limit (the span's spyglass.truncated attribute). */
function truncatedKeys(span: Span): string[] {
  const value = span.attributes?.['spyglass.truncated'];
  return Array.isArray(value) ? value.map(String) : [];
}

function ParamRow({ name, value }: { name: string; value: unknown }) {
  return (
    <>
      <dt className="mono">{name}</dt>
      <dd className="mono">{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
    </>
  );
}

function Attributes({ span }: { span: Span }) {
  const [filter, setFilter] = useState('');
  const attributes = span.attributes ?? {};
  const resource = span.resource ?? {};
  const count = Object.keys(attributes).length + Object.keys(resource).length;
  if (!count) return null;
  return (
    <Section
      title={`Attributes (${count})`}
      right={
        <TextInput
          size="xs"
          aria-label="Search attributes"
          placeholder="Search attributes"
          leftSection={<IconSearch size={12} aria-hidden />}
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
          w={200}
        />
      }
    >
      <AttributeTable attributes={attributes} filter={filter} />
      {/* "No match" only says something about a search: an empty search lists everything there is. */}
      {filter.trim() && !matchingAttributes(attributes, filter).length && !matchingAttributes(resource, filter).length && (
        <Text size="xs" className="muted">
          No attribute matches “{filter.trim()}”.
        </Text>
      )}
      {Object.keys(resource).length > 0 && (
        <>
          <Text size="xs" fw={600} mt={8} mb={2} c="#495057">
            Resource
          </Text>
          <AttributeTable attributes={resource} filter={filter} />
        </>
      )}
    </Section>
  );
}

function matchingAttributes(attributes: Record<string, unknown>, filter: string) {
  const needle = filter.trim().toLowerCase();
  return Object.entries(attributes)
    .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as const)
    .filter(([k, v]) => !needle || k.toLowerCase().includes(needle) || v.toLowerCase().includes(needle))
    .sort(([a], [b]) => a.localeCompare(b));
}

function AttributeTable({ attributes, filter }: { attributes: Record<string, unknown>; filter: string }) {
  const entries = matchingAttributes(attributes, filter);
  if (!entries.length) return null;
  return (
    <table className="attr-table">
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <td>{k}</td>
            <td className="mono">{v.length > 2000 ? `${v.slice(0, 2000)}…` : v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

import { Alert, Group, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconCheck, IconExternalLink, IconX } from '@tabler/icons-react';
import { Link, useParams } from '@tanstack/react-router';
import { useSimulationRun } from '../api/simulations.ts';
import { Metric } from '../components/TraceView.tsx';
import { formatDuration, formatFullTime } from '../lib/format.ts';
import { RunStatus } from './simulations.tsx';
import { Loading } from '../components/QueryState.tsx';

interface ToolCall {
  id: string;
  function: { name: string; arguments: string };
}
interface Message {
  id?: string;
  role: string;
  content?: unknown;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  trace_id?: string;
}

/** Text of a message's content: a string, or the text parts of a list of parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return (content as unknown[])
      .map((part) => {
        if (!part || typeof part !== 'object') return '';
        const p = part as { text?: unknown; type?: unknown };
        return typeof p.text === 'string' ? p.text : typeof p.type === 'string' ? `[${p.type}]` : '';
      })
      .filter(Boolean)
      .join('\n');
  }
  return content === null || content === undefined ? '' : JSON.stringify(content);
}

/** One scenario run replayed as its conversation, with the judge's verdict per criterion and its reasoning. */
export default function SimulationRunPage() {
  const { projectId, runId } = useParams({ from: '/p/$projectId/simulations/runs/$runId' });
  const run = useSimulationRun(projectId, runId);
  if (run.isError) {
    return (
      <div className="page">
        <Alert color="red" title="The run could not be loaded">
          {run.error.message}
        </Alert>
      </div>
    );
  }
  if (run.isPending) {
    return (
      <div className="page">
        <Loading label="Loading the run" />
      </div>
    );
  }
  const r = run.data;
  const messages = r.messages as Message[];
  const results = r.results;
  return (
    <div className="page simulation-run">
      <Link to="/p/$projectId/simulations" params={{ projectId }} search={{ set: r.scenarioSetId, batch: r.batchRunId }} className="back-link">
        <IconArrowLeft size={14} aria-hidden /> Runs of batch {r.batchRunId}
      </Link>
      <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
        <Title order={1} size="h4" className="ellipsis">
          {r.name ?? r.scenarioId}
        </Title>
        <RunStatus run={r} />
      </Group>
      {r.description && <Text size="sm">{r.description}</Text>}
      <Group gap="xl" wrap="wrap" style={{ rowGap: 6 }}>
        <Metric label="Set">{r.scenarioSetId}</Metric>
        <Metric label="Started">{formatFullTime(r.timestamp)}</Metric>
        <Metric label="Took">{formatDuration(r.durationMs)}</Metric>
        <Metric label="Messages">{messages.length.toLocaleString()}</Metric>
      </Group>
      {results && (
        <section className="sim-verdict" aria-label="The judge's verdict">
          <Text size="sm" fw={600}>
            Verdict: {results.verdict}
          </Text>
          <ul className="sim-criteria">
            {results.metCriteria.map((c) => (
              <li key={`met-${c}`} className="met">
                <IconCheck size={14} aria-label="met" /> {c}
              </li>
            ))}
            {results.unmetCriteria.map((c) => (
              <li key={`unmet-${c}`} className="unmet">
                <IconX size={14} aria-label="not met" /> {c}
              </li>
            ))}
          </ul>
          {results.reasoning && (
            <Text size="sm" className="textblock">
              {results.reasoning}
            </Text>
          )}
          {results.error && (
            <Text size="sm" c="#b02525">
              {results.error}
            </Text>
          )}
        </section>
      )}
      {messages.length === 0 ? (
        <Alert color="gray" title="No messages yet">
          The conversation shows as the run reports it.
        </Alert>
      ) : (
        <ol className="chat" aria-label="Conversation" data-testid="simulation-messages">
          {messages.map((m, i) => (
            <MessageBubble key={m.id ?? i} message={m} projectId={projectId} />
          ))}
        </ol>
      )}
    </div>
  );
}

function MessageBubble({ message: m, projectId }: { message: Message; projectId: string }) {
  const text = textOf(m.content);
  const role = m.role === 'user' ? 'user' : 'assistant';
  const label = m.role === 'user' ? 'Simulated user' : m.role === 'assistant' ? 'Agent' : m.role === 'tool' ? 'Tool result' : m.role;
  return (
    <li className="turn sim-turn" data-role={m.role}>
      <div className={`bubble ${role}${m.role === 'tool' ? ' tool' : ''}`}>
        <Group gap={8} wrap="wrap">
          <Text size="xs" fw={600} className="bubble-role">
            {label}
          </Text>
          {m.trace_id && (
            <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: m.trace_id }} className="turn-link">
              <IconExternalLink size={13} aria-hidden /> Trace
            </Link>
          )}
        </Group>
        {text && <div className="textblock">{text}</div>}
        {m.toolCalls?.map((call) => (
          <div key={call.id} className="sim-tool-call">
            <span className="mono">{call.function.name}</span>
            <pre className="mono">{call.function.arguments}</pre>
          </div>
        ))}
      </div>
    </li>
  );
}

import { useState } from 'react';
import { Alert, Button, Group, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { useMintProjectKey } from '../api/api-keys.ts';
import { can, useSession } from '../api/session.ts';
import { SnippetTabs } from './SnippetTabs.tsx';

/** An empty project: how to send the first trace, with snippets for this server and a key. */
export function FirstRun({ projectId }: { projectId: string }) {
  const { data: session } = useSession();
  const [token, setToken] = useState<string | null>(null);
  const mint = useMintProjectKey(projectId, (created) => setToken(created.token));
  const origin = window.location.origin;
  const key = token ?? '<your project API key>';
  const allowed = can(session, 'apiKeys:manage');
  // The example trace's timestamps: when the page opened.
  const [now] = useState(() => Date.now());

  const env = `export OTEL_EXPORTER_OTLP_ENDPOINT="${origin}/api/otel"
export OTEL_EXPORTER_OTLP_HEADERS="X-Auth-Token=${key}"`;
  const python = `pip install opentelemetry-sdk opentelemetry-exporter-otlp-proto-http
${env}

# in your app, before the LLM client is created:
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)`;
  const node = `npm install @opentelemetry/sdk-node @opentelemetry/exporter-trace-otlp-proto
${env}

// instrumentation.mjs, loaded first: node --import ./instrumentation.mjs app.mjs
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
new NodeSDK({ traceExporter: new OTLPTraceExporter() }).start();`;
  const curl = `curl -X POST ${origin}/api/collector \\
  -H "X-Auth-Token: ${key}" -H "Content-Type: application/json" \\
  -d '{"trace_id": "first-trace", "spans": [{"span_id": "s1", "type": "llm", "model": "gpt-4o-mini",
       "input": {"type": "text", "value": "Hello"}, "output": {"type": "text", "value": "Hi! How can I help?"},
       "timestamps": {"started_at": ${now - 1200}, "finished_at": ${now}}}]}'`;

  return (
    <Paper withBorder p="lg" radius="md" maw={860} mx="auto" w="100%" style={{ overflow: 'auto' }}>
      <Stack gap="md">
        <div>
          <Title order={2} size="h3">
            Send your first trace
          </Title>
          <Text size="sm" className="muted" mt={4}>
            This project has no traces yet. Point an OpenTelemetry exporter at this server, or post one trace with curl; it shows up here within two seconds.
          </Text>
        </div>
        <Group gap="sm">
          <Tooltip label="Only administrators can create project keys" disabled={allowed}>
            <Button leftSection={<IconKey size={14} />} onClick={() => mint.mutate()} loading={mint.isPending} disabled={!allowed || !!token} size="sm">
              {token ? 'Key created' : 'Create a project key'}
            </Button>
          </Tooltip>
          {token && (
            <Text size="sm" className="muted">
              The key is in the snippets below. It is shown this once: copy it now.
            </Text>
          )}
        </Group>
        {mint.isError && <Alert color="red">{mint.error.message}</Alert>}
        <SnippetTabs
          snippets={[
            { value: 'python', tab: 'Python (OpenTelemetry)', code: python, label: 'Python set-up' },
            { value: 'node', tab: 'Node (OpenTelemetry)', code: node, label: 'Node set-up' },
            { value: 'curl', tab: 'curl', code: curl, label: 'curl command' },
          ]}
        />
      </Stack>
    </Paper>
  );
}

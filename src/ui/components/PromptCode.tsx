import { useState } from 'react';
import { NativeSelect, Stack, Text } from '@mantine/core';
import type { Prompt } from '../api/prompts.ts';
import { SnippetTabs } from './SnippetTabs.tsx';

/** Code that fetches the prompt by handle and tag: curl, and Python and Node traced with OpenTelemetry. */
export function PromptCode({ prompt, tags }: { prompt: Prompt; tags: string[] }) {
  const [tag, setTag] = useState(tags.includes('production') ? 'production' : (tags[0] ?? ''));
  const origin = window.location.origin;
  const handle = prompt.handle ?? prompt.id;
  const path = `/api/prompts/${encodeURIComponent(handle)}`;
  const query = tag ? `?tag=${tag}` : '';
  const variables = Object.fromEntries(prompt.inputs.map((i) => [i.identifier, i.type === 'str' ? `<${i.identifier}>` : null]));
  const varsJson = JSON.stringify({ variables });

  const curl = `# the prompt${tag ? ` tagged ${tag}` : ' (newest version)'}
curl -H "X-Auth-Token: $SPYGLASS_API_KEY" "${origin}${path}${query}"
# rendered with variables
curl -X POST -H "X-Auth-Token: $SPYGLASS_API_KEY" -H 'content-type: application/json' \\
  "${origin}${path}/compile${query}" -d '${varsJson}'`;

  const python = `pip install requests opentelemetry-sdk opentelemetry-exporter-otlp-proto-http opentelemetry-instrumentation-requests
export OTEL_EXPORTER_OTLP_ENDPOINT="${origin}/api/otel"
export OTEL_EXPORTER_OTLP_HEADERS="X-Auth-Token=$SPYGLASS_API_KEY"

import os, requests
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.requests import RequestsInstrumentor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
RequestsInstrumentor().instrument()  # the fetch is a span of your trace
tracer = trace.get_tracer("my-app")

BASE = "${origin}"
HEADERS = {"X-Auth-Token": os.environ["SPYGLASS_API_KEY"]}
with tracer.start_as_current_span("get prompt ${handle}") as span:
    prompt = requests.post(
        f"{BASE}${path}/compile",
        params={${tag ? `"tag": "${tag}"` : ''}},
        json=${pythonLiteral(variables, 8)},
        headers=HEADERS,
    ).json()
    span.set_attribute("langwatch.prompt.handle", "${handle}")
    span.set_attribute("langwatch.prompt.version.number", prompt["version"])
messages = [{"role": "system", "content": prompt["prompt"]}, *prompt["messages"]]`;

  const node = `npm install @opentelemetry/sdk-node @opentelemetry/exporter-trace-otlp-proto @opentelemetry/api
export OTEL_EXPORTER_OTLP_ENDPOINT="${origin}/api/otel"
export OTEL_EXPORTER_OTLP_HEADERS="X-Auth-Token=$SPYGLASS_API_KEY"

import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { trace } from '@opentelemetry/api';

new NodeSDK({ traceExporter: new OTLPTraceExporter() }).start();
const tracer = trace.getTracer('my-app');

const prompt = await tracer.startActiveSpan('get prompt ${handle}', async (span) => {
  const response = await fetch('${origin}${path}/compile${query}', {
    method: 'POST',
    headers: { 'X-Auth-Token': process.env.SPYGLASS_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(${JSON.stringify({ variables })}),
  });
  const compiled = await response.json();
  span.setAttributes({ 'langwatch.prompt.handle': '${handle}', 'langwatch.prompt.version.number': compiled.version });
  span.end();
  return compiled;
});
const messages = [{ role: 'system', content: prompt.prompt }, ...prompt.messages];`;

  return (
    <Stack gap="sm" maw={980}>
      <NativeSelect
        label="Tag"
        description="Your code asks for this tag; move the tag to ship another version without a deploy"
        value={tag}
        onChange={(e) => setTag(e.currentTarget.value)}
        data={[{ value: '', label: 'no tag (the newest version)' }, ...tags.map((t) => ({ value: t, label: t }))]}
        w={320}
      />
      <Text size="sm" className="muted">
        Set SPYGLASS_API_KEY to a project key (Settings, or the first-run panel of the traces list).
      </Text>
      <SnippetTabs
        snippets={[
          { value: 'curl', tab: 'curl', code: curl, label: 'curl commands' },
          { value: 'python', tab: 'Python (OpenTelemetry)', code: python, label: 'Python code' },
          { value: 'node', tab: 'Node (OpenTelemetry)', code: node, label: 'Node code' },
        ]}
      />
    </Stack>
  );
}

/** A JSON value as a Python literal (None, True, False). */
function pythonLiteral(value: unknown, indent: number): string {
  return JSON.stringify({ variables: value }, null, 4)
    .replace(/\bnull\b/g, 'None')
    .replace(/\btrue\b/g, 'True')
    .replace(/\bfalse\b/g, 'False')
    .split('\n')
    .map((line, i) => (i === 0 ? line : ' '.repeat(indent) + line))
    .join('\n');
}

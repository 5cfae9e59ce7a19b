import { useState } from 'react';
import { Alert, Button, Group, NativeSelect, Paper, SimpleGrid, Stack, Switch, Text, TextInput, Textarea, Title } from '@mantine/core';
import { IconPlayerPlay, IconWand } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ApiError, api } from '../api/client.ts';
import { compilePrompt, promptPath, type CompiledPrompt } from '../api/prompts.ts';
import type { Prompt, PromptInputType, PromptRunBody, PromptRunResult } from '../api/types.ts';
import { formatCost, formatDuration } from '../lib/format.ts';
import { INPUT_TYPE_CHECKS, placeholdersOf } from '../lib/prompt-types.ts';


/** A typed value from the form's text: numbers, booleans and lists as the input type says. */
function parseValue(type: string, raw: string): unknown {
  if (type === 'str' || type === 'image') return raw;
  if (type === 'float') return raw.trim() === '' ? undefined : Number(raw);
  if (type === 'bool') return raw === 'true';
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // the check below names what it must be
  }
}

/** Fill the declared variables, see the rendered messages, and run it against the configured model. */
export function PromptPreview({ projectId, promptId, versions }: { projectId: string; promptId: string; versions: Prompt[] }) {
  const [versionNumber, setVersionNumber] = useState(versions[0].version);
  const version = versions.find((v) => v.version === versionNumber) ?? versions[0];
  const declared = new Map(version.inputs.map((i) => [i.identifier, i.type]));
  const used = new Set(placeholdersOf([version.prompt, ...version.messages.map((m) => m.content)]));
  const names = [...new Set([...declared.keys(), ...used])];
  const [raw, setRaw] = useState<Record<string, string>>({});
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  /** The variables, checked as the API checks them; null (with the errors shown) when one is wrong. */
  const variables = (): Record<string, unknown> | null => {
    const out: Record<string, unknown> = {};
    const errors: Record<string, string> = {};
    for (const name of names) {
      const type = declared.get(name) ?? 'str';
      const value = parseValue(type, raw[name] ?? (type === 'bool' ? 'false' : ''));
      if (value === undefined || (value === '' && used.has(name))) {
        if (used.has(name)) errors[name] = `required: the prompt uses {{${name}}}`;
        continue;
      }
      const check = INPUT_TYPE_CHECKS[type as PromptInputType];
      if (check && !check.accepts(value)) errors[name] = `must be ${check.expected}${type.startsWith('list') || type === 'dict' ? ' (JSON)' : ''}`;
      else out[name] = value;
    }
    setFieldErrors(errors);
    return Object.keys(errors).length ? null : out;
  };
  const serverField = (e: unknown) => (e instanceof ApiError && e.message.startsWith('variables.') ? e.message.split(':')[0].slice('variables.'.length) : null);

  const compile = useMutation({
    mutationFn: (vars: Record<string, unknown>) => compilePrompt(projectId, promptId, version.version, vars),
    onError: (e) => {
      const field = serverField(e);
      if (field) setFieldErrors({ [field]: e.message.slice(e.message.indexOf(':') + 1).trim() });
    },
  });
  const run = useMutation({
    mutationFn: (vars: Record<string, unknown>) => api<PromptRunResult>('POST', `${promptPath(promptId)}/run`, { projectId, body: { variables: vars, version: version.version } satisfies PromptRunBody }),
  });

  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <Stack gap="sm">
        <NativeSelect label="Version" value={String(version.version)} onChange={(e) => setVersionNumber(Number(e.currentTarget.value))} data={versions.map((v) => ({ value: String(v.version), label: `v${v.version}${v.tags.length ? ` (${v.tags.join(', ')})` : ''}` }))} w={220} />
        <Title order={2} size="h5">
          Variables
        </Title>
        {names.length === 0 && (
          <Text size="sm" className="muted">
            This version declares and uses no variables.
          </Text>
        )}
        {names.map((name) => {
          const type = declared.get(name) ?? 'str';
          const label = `${name} (${type}${declared.has(name) ? '' : ', not declared'})`;
          const error = fieldErrors[name];
          const setValue = (value: string) => setRaw((r) => ({ ...r, [name]: value }));
          if (type === 'bool') return <Switch key={name} label={label} checked={raw[name] === 'true'} onChange={(e) => setValue(String(e.currentTarget.checked))} />;
          if (type.startsWith('list') || type === 'dict')
            return <Textarea key={name} label={label} description={type === 'dict' ? 'a JSON object' : 'a JSON array, e.g. ["a", "b"]'} autosize minRows={2} className="mono" value={raw[name] ?? ''} onChange={(e) => setValue(e.currentTarget.value)} error={error} />;
          return <TextInput key={name} label={label} value={raw[name] ?? ''} inputMode={type === 'float' ? 'decimal' : undefined} onChange={(e) => setValue(e.currentTarget.value)} error={error} />;
        })}
        <Group gap="sm">
          <Button
            leftSection={<IconWand size={14} />}
            onClick={() => {
              const vars = variables();
              if (vars) compile.mutate(vars);
            }}
            loading={compile.isPending}
          >
            Compile
          </Button>
          <Button
            variant="light"
            leftSection={<IconPlayerPlay size={14} />}
            onClick={() => {
              const vars = variables();
              if (vars) run.mutate(vars);
            }}
            loading={run.isPending}
          >
            Try it
          </Button>
        </Group>
        {compile.isError && !serverField(compile.error) && <Alert color="red">{compile.error.message}</Alert>}
      </Stack>
      <Stack gap="sm" aria-live="polite">
        {compile.data && <Rendered compiled={compile.data} />}
        {run.isError && (
          <Alert color="red" title="The run failed">
            {run.error.message}
          </Alert>
        )}
        {run.data && <RunResult projectId={projectId} result={run.data} />}
      </Stack>
    </SimpleGrid>
  );
}

function Rendered({ compiled }: { compiled: CompiledPrompt }) {
  const messages = [...(compiled.prompt ? [{ role: 'system' as const, content: compiled.prompt }] : []), ...compiled.messages];
  return (
    <Stack gap={6} data-testid="compiled">
      <Title order={2} size="h5">
        Rendered messages (v{compiled.version})
      </Title>
      {messages.map((m, i) => (
        <div key={i} className={`chat-msg role-${m.role}`}>
          <Text size="xs" fw={600} tt="uppercase" className="muted">
            {m.role}
          </Text>
          <pre className="textblock">{m.content}</pre>
        </div>
      ))}
    </Stack>
  );
}

function RunResult({ projectId, result }: { projectId: string; result: PromptRunResult }) {
  return (
    <Paper withBorder p="sm" data-testid="run-result">
      <Title order={2} size="h5" mb={6}>
        Answer of {result.model}
      </Title>
      <pre className="textblock">{result.output.content}</pre>
      <dl className="kv" style={{ marginTop: 8 }}>
        <dt>Tokens</dt>
        <dd>
          {result.usage.prompt_tokens} prompt · {result.usage.completion_tokens} completion
        </dd>
        <dt>Cost</dt>
        <dd>{result.cost ? formatCost(result.cost.amount) : 'not priced'}</dd>
        <dt>Latency</dt>
        <dd>{formatDuration(result.latency_ms)}</dd>
        <dt>Trace</dt>
        <dd>
          <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: result.trace_id }}>
            {result.trace_id}
          </Link>
        </dd>
      </dl>
    </Paper>
  );
}

import { useState } from 'react';
import { ActionIcon, Alert, Badge, Button, Group, NativeSelect, Paper, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { IconAdjustments, IconDeviceFloppy, IconX } from '@tabler/icons-react';
import { Link } from '@tanstack/react-router';
import { ApiError } from '../api/client.ts';
import { ModelPicker } from './ModelPicker.tsx';
import { fieldError } from '../lib/form-errors.ts';
import type { ModelParameters, ToolCall } from '../api/playground.ts';
import type { Prompt } from '../api/prompts.ts';
import type { PromptRunResult } from '../api/playground.ts';
import { formatCost, formatDuration } from '../lib/format.ts';

/** A column's parameters as the form holds them: text, parsed when the column runs. */
export interface ParameterForm {
  temperature: string;
  max_tokens: string;
  top_p: string;
  stop: string;
  seed: string;
  format: 'default' | 'text' | 'json_object' | 'json_schema';
  schema: string;
  tools: string;
  tool_choice: string;
}

export interface ColumnSetup {
  key: number;
  version: number;
  model: string;
  form: ParameterForm;
}

export interface ColumnRun {
  status: 'running' | 'done' | 'error';
  text: string;
  toolCalls: ToolCall[];
  result?: PromptRunResult;
  error?: unknown;
}

const json = (v: unknown) => JSON.stringify(v, null, 2);

/** The form of a version's stored parameters. */
export function formOf(p: ModelParameters): ParameterForm {
  const format = p.response_format;
  return {
    temperature: p.temperature?.toString() ?? '',
    max_tokens: p.max_tokens?.toString() ?? '',
    top_p: p.top_p?.toString() ?? '',
    stop: p.stop === undefined ? '' : typeof p.stop === 'string' ? p.stop : p.stop.join(', '),
    seed: p.seed?.toString() ?? '',
    format: format?.type ?? 'default',
    schema: format?.type === 'json_schema' ? json({ name: format.json_schema.name, schema: format.json_schema.schema }) : '',
    tools: p.tools?.length ? json(p.tools) : '',
    tool_choice: p.tool_choice === undefined ? '' : typeof p.tool_choice === 'string' ? p.tool_choice : p.tool_choice.function.name,
  };
}

/** The parameters a form says; a field it cannot read comes back in `errors` (the server checks ranges). */
export function parametersOf(f: ParameterForm): { parameters: ModelParameters; errors: Partial<Record<keyof ParameterForm, string>> } {
  const out: Record<string, unknown> = {};
  const errors: Partial<Record<keyof ParameterForm, string>> = {};
  for (const key of ['temperature', 'max_tokens', 'top_p', 'seed'] as const) {
    const raw = f[key].trim();
    if (!raw) continue;
    const n = Number(raw);
    if (Number.isFinite(n)) out[key] = n;
    else errors[key] = 'Must be a number';
  }
  const stops = f.stop
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (stops.length) out.stop = stops;
  if (f.format === 'text' || f.format === 'json_object') out.response_format = { type: f.format };
  if (f.format === 'json_schema') {
    try {
      const parsed = JSON.parse(f.schema) as { name?: string; schema?: unknown };
      out.response_format = { type: 'json_schema', json_schema: { name: parsed.name ?? 'answer', schema: parsed.schema ?? parsed } };
    } catch {
      errors.schema = 'Must be JSON: {"name": ..., "schema": {...}}';
    }
  }
  if (f.tools.trim()) {
    try {
      out.tools = JSON.parse(f.tools);
    } catch {
      errors.tools = 'Must be a JSON array of tools';
    }
  }
  const choice = f.tool_choice.trim();
  if (choice) out.tool_choice = ['auto', 'none', 'required'].includes(choice) ? choice : { type: 'function', function: { name: choice } };
  return { parameters: out, errors };
}

const TOOLS_PLACEHOLDER = '[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]';

/** One column of the playground: a version and a model, its parameters, and its streamed answer. */
export function PlaygroundColumn({
  index,
  projectId,
  setup,
  versions,
  run,
  formErrors,
  onChange,
  onRemove,
  onSave,
}: {
  index: number;
  projectId: string;
  setup: ColumnSetup;
  versions: Prompt[];
  run: ColumnRun | undefined;
  formErrors: Partial<Record<keyof ParameterForm, string>>;
  onChange: (next: ColumnSetup) => void;
  onRemove?: () => void;
  onSave: (commitMessage: string) => Promise<Prompt>;
}) {
  const [showParameters, setShowParameters] = useState(false);
  const [saving, setSaving] = useState<{ message: string; pending: boolean; saved?: number; error?: string } | null>(null);
  const { form } = setup;
  const set = (patch: Partial<ParameterForm>) => onChange({ ...setup, form: { ...form, ...patch } });
  const serverError = (field: keyof ParameterForm) => formErrors[field] ?? fieldError(run?.error, field);
  const name = `Column ${index + 1}`;
  const result = run?.result;

  const save = async () => {
    if (!saving) return;
    setSaving({ ...saving, pending: true, error: undefined });
    try {
      const saved = await onSave(saving.message);
      setSaving({ message: saving.message, pending: false, saved: saved.version });
    } catch (e) {
      setSaving({ ...saving, pending: false, error: e instanceof Error ? e.message : String(e) });
    }
  };

  return (
    <Paper withBorder p="sm" component="section" aria-label={name} data-column={index + 1} className="playground-column">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Title order={3} size="h6">
            {name}
          </Title>
          {onRemove && (
            <ActionIcon variant="subtle" color="gray" aria-label={`Remove column ${index + 1}`} onClick={onRemove}>
              <IconX size={16} />
            </ActionIcon>
          )}
        </Group>
        <SimpleGrid cols={2} spacing="xs">
          <NativeSelect
            label="Version"
            value={String(setup.version)}
            onChange={(e) => {
              const v = versions.find((x) => x.version === Number(e.currentTarget.value)) ?? versions[0];
              onChange({ ...setup, version: v.version, model: v.model, form: formOf(v.parameters) });
            }}
            data={versions.map((v) => ({ value: String(v.version), label: `v${v.version}${v.tags.length ? ` (${v.tags.join(', ')})` : ''}` }))}
          />
          <ModelPicker projectId={projectId} label="Model" value={setup.model} onChange={(model) => onChange({ ...setup, model })} />
        </SimpleGrid>
        <Button variant="subtle" size="compact-sm" leftSection={<IconAdjustments size={14} />} onClick={() => setShowParameters((s) => !s)} aria-expanded={showParameters} style={{ alignSelf: 'flex-start' }}>
          Parameters and tools
        </Button>
        {showParameters && (
          <Stack gap="xs">
            <SimpleGrid cols={2} spacing="xs">
              <TextInput label="Temperature" inputMode="decimal" placeholder="0..2" value={form.temperature} onChange={(e) => set({ temperature: e.currentTarget.value })} error={serverError('temperature')} />
              <TextInput label="Max tokens" inputMode="numeric" value={form.max_tokens} onChange={(e) => set({ max_tokens: e.currentTarget.value })} error={serverError('max_tokens')} />
              <TextInput label="Top p" inputMode="decimal" placeholder="0..1" value={form.top_p} onChange={(e) => set({ top_p: e.currentTarget.value })} error={serverError('top_p')} />
              <TextInput label="Seed" inputMode="numeric" value={form.seed} onChange={(e) => set({ seed: e.currentTarget.value })} error={serverError('seed')} />
            </SimpleGrid>
            <TextInput label="Stop sequences" description="comma-separated, up to 4" value={form.stop} onChange={(e) => set({ stop: e.currentTarget.value })} error={serverError('stop')} />
            <NativeSelect
              label="Response format"
              value={form.format}
              onChange={(e) => set({ format: e.currentTarget.value as ParameterForm['format'] })}
              data={[
                { value: 'default', label: "The version's (JSON Schema output, or text)" },
                { value: 'text', label: 'Text' },
                { value: 'json_object', label: 'JSON object' },
                { value: 'json_schema', label: 'JSON Schema' },
              ]}
              error={serverError('response_format' as keyof ParameterForm)}
            />
            {form.format === 'json_schema' && (
              <Textarea label="JSON Schema" description='{"name": "answer", "schema": {...}}' className="mono" autosize minRows={3} value={form.schema} onChange={(e) => set({ schema: e.currentTarget.value })} error={serverError('schema')} />
            )}
            <Textarea label="Tools" description="JSON Schema function declarations; the model's calls are shown, not run" placeholder={TOOLS_PLACEHOLDER} className="mono" autosize minRows={2} value={form.tools} onChange={(e) => set({ tools: e.currentTarget.value })} error={serverError('tools')} />
            <TextInput label="Tool choice" description="auto, none, required, or a tool's name" value={form.tool_choice} onChange={(e) => set({ tool_choice: e.currentTarget.value })} error={serverError('tool_choice')} />
          </Stack>
        )}

        <div aria-live="polite" aria-busy={run?.status === 'running'}>
          {run?.status === 'error' && (
            <Alert color="red" title="The run failed">
              {run.error instanceof ApiError || run.error instanceof Error ? run.error.message : String(run.error)}
            </Alert>
          )}
          {run && run.status !== 'error' && (
            <Stack gap={6} data-testid="run-result">
              <Group gap={6}>
                <Text size="xs" fw={600} tt="uppercase" className="muted">
                  Answer{result ? ` of ${result.model}` : ''}
                </Text>
                {run.status === 'running' && (
                  <Badge size="xs" variant="light">
                    streaming
                  </Badge>
                )}
              </Group>
              <pre className="textblock" data-testid="answer">
                {run.text || (run.status === 'running' ? '…' : run.toolCalls.length ? '' : '(no text)')}
              </pre>
              {run.toolCalls.map((c) => (
                <div key={c.id} className="chat-msg role-tool" data-testid="tool-call">
                  <Text size="xs" fw={600}>
                    Tool call: {c.name}
                  </Text>
                  <pre className="textblock mono">{typeof c.arguments === 'string' ? c.arguments : json(c.arguments)}</pre>
                </div>
              ))}
              {result && (
                <dl className="kv" data-testid="run-stats">
                  <dt>Time to first token</dt>
                  <dd>{formatDuration(result.ttft_ms)}</dd>
                  <dt>Duration</dt>
                  <dd>{formatDuration(result.latency_ms)}</dd>
                  <dt>Tokens</dt>
                  <dd>
                    {result.usage.prompt_tokens} in · {result.usage.completion_tokens} out
                  </dd>
                  <dt>Cost</dt>
                  <dd>{result.cost ? formatCost(result.cost.amount) : 'not priced'}</dd>
                  <dt>Trace</dt>
                  <dd>
                    <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: result.trace_id }} aria-label={`Trace of column ${index + 1}`}>
                      {result.trace_id.slice(0, 12)}…
                    </Link>
                  </dd>
                </dl>
              )}
            </Stack>
          )}
        </div>

        {saving === null ? (
          <Button
            variant="light"
            size="xs"
            leftSection={<IconDeviceFloppy size={14} />}
            style={{ alignSelf: 'flex-start' }}
            onClick={() => setSaving({ message: `From the playground: ${setup.model}`, pending: false })}
          >
            Save as new version
          </Button>
        ) : saving.saved ? (
          <Text size="sm" data-testid="saved-version">
            Saved as version {saving.saved}.
          </Text>
        ) : (
          <Stack gap={6}>
            <TextInput label="Commit message" value={saving.message} onChange={(e) => setSaving({ ...saving, message: e.currentTarget.value })} error={saving.error} />
            <Group gap="xs">
              <Button size="xs" onClick={() => void save()} loading={saving.pending} disabled={!saving.message.trim()}>
                Save version
              </Button>
              <Button size="xs" variant="subtle" color="gray" onClick={() => setSaving(null)}>
                Cancel
              </Button>
            </Group>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

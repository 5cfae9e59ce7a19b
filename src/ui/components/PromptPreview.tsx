import { useRef, useState } from 'react';
import { Alert, Button, Group, NativeSelect, SimpleGrid, Stack, Switch, Text, TextInput, Textarea, Title } from '@mantine/core';
import { IconColumnInsertRight, IconPlayerPlay, IconWand } from '@tabler/icons-react';
import { ApiError } from '../api/client.ts';
import { fetchTrace } from '../api/traces.ts';
import { fetchRecords, useDatasets } from '../api/datasets.ts';
import { streamPromptRun } from '../api/playground.ts';
import { useCompilePrompt, usePromptMutations, type CompiledPrompt } from '../api/prompts.ts';
import type { Prompt } from '../api/prompts.ts';
import type { PromptInputType, UpdatePromptBody } from '../api/types.ts';
import { INPUT_TYPE_CHECKS, placeholdersOf } from '../lib/prompt-types.ts';
import { formOf, parametersOf, PlaygroundColumn, type ColumnRun, type ColumnSetup, type ParameterForm } from './PlaygroundColumn.tsx';

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

/** What a dataset row or a trace's input fills: its keys that name variables; a plain text fills `textTarget`. */
function fillFrom(source: unknown, names: string[], textTarget: string | undefined): Record<string, string> {
  let value = source;
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) value = parsed;
    } catch {
      /* plain text */
    }
  }
  // A chat: its last user message.
  if (Array.isArray(value) && value.every((m) => m && typeof m === 'object' && 'role' in m)) {
    const user = [...(value as { role: string; content: unknown }[])].reverse().find((m) => m.role === 'user');
    value = user?.content ?? '';
  }
  const asRaw = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entry = value as Record<string, unknown>;
    return Object.fromEntries(names.filter((n) => n in entry).map((n) => [n, asRaw(entry[n])]));
  }
  const target = textTarget;
  return target === undefined || value === undefined || value === null ? {} : { [target]: asRaw(value) };
}

const MAX_COLUMNS = 4;

/**
 * "Preview and try", the playground: shared variables (typed by hand, or from a dataset row or
 * a trace's input), rendered on Compile, and run on 1..4 columns side by side, each a version,
 * a model and its parameters, streaming its answer with TTFT, tokens and cost.
 */
export function PromptPreview({ projectId, promptId, versions }: { projectId: string; promptId: string; versions: Prompt[] }) {
  const newest = versions[0];
  const [columns, setColumns] = useState<ColumnSetup[]>(() => [{ key: 0, version: newest.version, model: newest.model, form: formOf(newest.parameters) }]);
  const [runs, setRuns] = useState<Record<number, ColumnRun>>({});
  // A new column's key is never a removed one's (whose run it would show).
  const nextKey = useRef(1);
  const [formErrors, setFormErrors] = useState<Record<number, Partial<Record<keyof ParameterForm, string>>>>({});
  const { save } = usePromptMutations(projectId, promptId);
  const versionOf = (n: number) => versions.find((v) => v.version === n) ?? newest;
  const first = versionOf(columns[0].version);
  // The variables of every column's version.
  const shown = [...new Set(columns.map((c) => c.version))].map(versionOf);
  const declared = new Map(shown.flatMap((v) => v.inputs.map((i) => [i.identifier, i.type] as const)));
  const used = new Set(placeholdersOf(shown.flatMap((v) => [v.prompt, ...v.messages.map((m) => m.content)])));
  const names = [...new Set([...declared.keys(), ...used])];
  const [raw, setRaw] = useState<Record<string, string>>({});
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [filled, setFilled] = useState<string | null>(null);

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

  const compile = useCompilePrompt(projectId, promptId, first.version, (e) => {
    const field = serverField(e);
    if (field) setFieldErrors({ [field]: e.message.slice(e.message.indexOf(':') + 1).trim() });
  });

  const fill = (source: unknown, from: string) => {
    // A plain text is what the user said: the variable of the last user message (else input, else the first).
    const lastUser = [...first.messages].reverse().find((m) => m.role === 'user');
    const textTarget = placeholdersOf(lastUser ? [lastUser.content] : []).at(-1) ?? (names.includes('input') ? 'input' : names[0]);
    const values = fillFrom(source, names, textTarget);
    setRaw((r) => ({ ...r, ...values }));
    setFilled(Object.keys(values).length ? `Filled ${Object.keys(values).join(', ')} from ${from}.` : `Nothing in ${from} names a variable (${names.join(', ')}).`);
  };

  const runColumn = async (column: ColumnSetup, vars: Record<string, unknown>) => {
    const { parameters, errors } = parametersOf(column.form);
    setFormErrors((f) => ({ ...f, [column.key]: errors }));
    if (Object.keys(errors).length) return;
    const update = (patch: (r: ColumnRun) => ColumnRun) => setRuns((all) => ({ ...all, [column.key]: patch(all[column.key]) }));
    setRuns((all) => ({ ...all, [column.key]: { status: 'running', text: '', toolCalls: [] } }));
    try {
      const result = await streamPromptRun(projectId, promptId, { variables: vars, version: column.version, model: column.model, parameters }, (e) =>
        update((r) => (e.type === 'text' ? { ...r, text: r.text + e.text } : e.type === 'tool_call' ? { ...r, toolCalls: [...r.toolCalls, { id: e.id, name: e.name, arguments: e.arguments }] } : r)),
      );
      update(() => ({ status: 'done', text: result.output.content, toolCalls: result.tool_calls, result }));
    } catch (error) {
      const field = serverField(error);
      if (field) setFieldErrors({ [field]: (error as Error).message.slice((error as Error).message.indexOf(':') + 1).trim() });
      update((r) => ({ ...r, status: 'error', error }));
    }
  };
  const running = Object.values(runs).some((r) => r.status === 'running');

  const saveColumn = async (column: ColumnSetup, commitMessage: string) => {
    const { parameters, errors } = parametersOf(column.form);
    if (Object.keys(errors).length) throw new Error(`Parameters: ${Object.values(errors).join('; ')}`);
    const v = versionOf(column.version);
    return save.mutateAsync({ commitMessage, model: column.model, parameters, prompt: v.prompt, messages: v.messages, inputs: v.inputs as UpdatePromptBody['inputs'], outputs: v.outputs as UpdatePromptBody['outputs'] });
  };

  return (
    <Stack gap="lg">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Stack gap="sm">
          <Title order={2} size="h5">
            Variables
          </Title>
          <FillFrom projectId={projectId} onFill={fill} />
          {filled && (
            <Text size="sm" className="muted" aria-live="polite">
              {filled}
            </Text>
          )}
          {names.length === 0 && (
            <Text size="sm" className="muted">
              These versions declare and use no variables.
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
            return <Textarea key={name} label={label} autosize minRows={1} maxRows={8} value={raw[name] ?? ''} inputMode={type === 'float' ? 'decimal' : undefined} onChange={(e) => setValue(e.currentTarget.value)} error={error} />;
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
              leftSection={<IconPlayerPlay size={14} />}
              onClick={() => {
                const vars = variables();
                if (vars) for (const column of columns) void runColumn(column, vars);
              }}
              loading={running}
            >
              Try it
            </Button>
            <Button
              variant="subtle"
              leftSection={<IconColumnInsertRight size={14} />}
              disabled={columns.length >= MAX_COLUMNS}
              onClick={() => setColumns((cs) => [...cs, { ...cs[cs.length - 1], key: nextKey.current++ }])}
            >
              Add column
            </Button>
          </Group>
          {compile.isError && !serverField(compile.error) && <Alert color="red">{compile.error.message}</Alert>}
        </Stack>
        <Stack gap="sm" aria-live="polite">
          {compile.data && <Rendered compiled={compile.data} />}
        </Stack>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, sm: Math.min(columns.length, 2), lg: columns.length }} spacing="md" data-testid="playground-columns">
        {columns.map((column, i) => (
          <PlaygroundColumn
            key={column.key}
            index={i}
            projectId={projectId}
            setup={column}
            versions={versions}
            run={runs[column.key]}
            formErrors={formErrors[column.key] ?? {}}
            onChange={(next) => setColumns((cs) => cs.map((c) => (c.key === column.key ? next : c)))}
            onRemove={
              columns.length > 1
                ? () => {
                    setColumns((cs) => cs.filter((c) => c.key !== column.key));
                    setRuns(({ [column.key]: _gone, ...rest }) => rest);
                  }
                : undefined
            }
            onSave={(message) => saveColumn(column, message)}
          />
        ))}
      </SimpleGrid>
    </Stack>
  );
}

/** Variables from a dataset's row (by its number) or from a trace's input (by its id). */
function FillFrom({ projectId, onFill }: { projectId: string; onFill: (source: unknown, from: string) => void }) {
  const datasets = useDatasets(projectId);
  const [datasetId, setDatasetId] = useState('');
  const [row, setRow] = useState('1');
  const [traceId, setTraceId] = useState('');
  const [error, setError] = useState<{ at: 'row' | 'trace'; message: string } | null>(null);
  const [pending, setPending] = useState(false);
  const load = async (at: 'row' | 'trace', read: () => Promise<{ source: unknown; from: string }>) => {
    setPending(true);
    setError(null);
    try {
      const { source, from } = await read();
      onFill(source, from);
    } catch (e) {
      setError({ at, message: e instanceof Error ? e.message : String(e) });
    } finally {
      setPending(false);
    }
  };
  const list = datasets.data?.data ?? [];
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <NativeSelect label="Dataset" value={datasetId} onChange={(e) => setDatasetId(e.currentTarget.value)} data={[{ value: '', label: list.length ? 'Choose a dataset' : 'No datasets' }, ...list.map((d) => ({ value: d.id, label: d.name }))]} style={{ flex: 2, minWidth: 0 }} />
        <TextInput label="Row" inputMode="numeric" value={row} onChange={(e) => setRow(e.currentTarget.value)} style={{ flex: 1, minWidth: 0 }} error={error?.at === 'row' ? error.message : undefined} />
        <Button
          variant="default"
          disabled={!datasetId || pending}
          onClick={() =>
            void load('row', async () => {
              const n = Number(row);
              if (!Number.isInteger(n) || n < 1) throw new Error('Must be a row number, 1 or more');
              const page = await fetchRecords(projectId, datasetId, { page: n, limit: 1 });
              if (!page.data[0]) throw new Error(`The dataset has no row ${n}`);
              return { source: page.data[0].entry, from: `row ${n}` };
            })
          }
        >
          Fill
        </Button>
      </Group>
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <TextInput label="Trace ID" value={traceId} onChange={(e) => setTraceId(e.currentTarget.value)} style={{ flex: 1, minWidth: 0 }} error={error?.at === 'trace' ? error.message : undefined} />
        <Button
          variant="default"
          disabled={!traceId.trim() || pending}
          onClick={() =>
            void load('trace', async () => {
              const trace = await fetchTrace(projectId, traceId.trim());
              return { source: trace.input?.value ?? null, from: 'the trace input' };
            })
          }
        >
          Fill from trace
        </Button>
      </Group>
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

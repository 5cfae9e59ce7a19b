import { lazy, Suspense, useState } from 'react';
import { ActionIcon, Alert, Button, Fieldset, Group, NativeSelect, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import { usePromptMutations } from '../api/prompts.ts';
import { can, useSession } from '../api/session.ts';
import type { Prompt, PromptMessage } from '../api/prompts.ts';
import type { PromptOutputType, UpdatePromptBody } from '../api/types.ts';
import { INPUT_TYPES, OUTPUT_TYPES } from '../lib/prompt-types.ts';
import { ModelPicker } from './ModelPicker.tsx';
import { formErrors } from '../lib/form-errors.ts';

const JsonEditor = lazy(() => import('./JsonEditor.tsx'));

type OutputDraft = { identifier: string; type: PromptOutputType; schemaText: string };
interface Draft {
  model: string;
  prompt: string;
  messages: PromptMessage[];
  inputs: { identifier: string; type: string }[];
  outputs: OutputDraft[];
}

const draftOf = (p: Prompt): Draft => ({
  model: p.model,
  prompt: p.prompt,
  messages: p.messages.map((m) => ({ ...m })),
  inputs: p.inputs.map((i) => ({ ...i })),
  outputs: p.outputs.map((o) => ({
    identifier: o.identifier,
    type: o.type as PromptOutputType,
    schemaText: o.json_schema ? JSON.stringify(o.json_schema, null, 2) : '{\n  "type": "object",\n  "properties": {}\n}',
  })),
});

const move = <T,>(list: T[], from: number, to: number) => {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
};

/** The fields of the form, as paths of the request body, where the API's refusals are shown. */
const FIELDS = ['model', 'prompt', 'messages.*.role', 'messages.*.content', 'inputs.*.identifier', 'inputs.*.type', 'outputs.*.identifier', 'outputs.*.type', 'outputs.*.json_schema', 'commitMessage'];

/** The newest version as a form; saving makes a new version with a commit message. */
export function PromptEditor({ projectId, prompt, onSaved }: { projectId: string; prompt: Prompt; onSaved: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(prompt));
  const [commitMessage, setCommitMessage] = useState('');
  /** An output's JSON Schema that does not parse: said under its editor, and nothing is sent. */
  const [schemaError, setSchemaError] = useState<{ index: number; message: string } | null>(null);
  const { save } = usePromptMutations(projectId, prompt.id);
  const { data: session } = useSession();
  const allowed = can(session, 'prompts:update');
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const errors = formErrors(save.error, FIELDS);

  const submit = async () => {
    setSchemaError(null);
    save.reset();
    const outputs: NonNullable<UpdatePromptBody['outputs']> = [];
    for (const [index, o] of draft.outputs.entries()) {
      if (o.type !== 'json_schema') {
        outputs.push({ identifier: o.identifier, type: o.type });
        continue;
      }
      try {
        outputs.push({ identifier: o.identifier, type: o.type, json_schema: JSON.parse(o.schemaText) as (typeof outputs)[number]['json_schema'] });
      } catch (e) {
        setSchemaError({ index, message: `Not valid JSON: ${(e as Error).message}.` });
        return;
      }
    }
    await save.mutateAsync({
      commitMessage: commitMessage.trim(),
      model: draft.model.trim(),
      prompt: draft.prompt,
      messages: draft.messages,
      inputs: draft.inputs as UpdatePromptBody['inputs'],
      outputs,
    });
    notifications.show({ message: 'Saved as a new version', color: 'teal' });
    onSaved();
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit().catch(() => undefined);
      }}
    >
      <Stack gap="md" maw={980}>
        <ModelPicker projectId={projectId} label="Model" description="Pick one, or type provider/model (e.g. openai/gpt-4o-mini)" value={draft.model} onChange={(model) => set({ model })} required error={errors.at('model')} />
        <Textarea label="System prompt" description="Use {{variable}} for inputs" autosize minRows={3} maxRows={16} value={draft.prompt} onChange={(e) => set({ prompt: e.currentTarget.value })} error={errors.at('prompt')} />

        <Fieldset legend="Messages">
          <Stack gap="sm">
            {draft.messages.map((m, i) => (
              <Group key={i} align="flex-start" gap="xs" wrap="nowrap" data-testid="message-row">
                <NativeSelect
                  aria-label={`Role of message ${i + 1}`}
                  value={m.role}
                  data={['system', 'user', 'assistant']}
                  onChange={(e) => set({ messages: draft.messages.map((x, j) => (j === i ? { ...x, role: e.currentTarget.value as PromptMessage['role'] } : x)) })}
                  w={120}
                  error={errors.at(`messages.${i}.role`)}
                />
                <Textarea
                  aria-label={`Content of message ${i + 1}`}
                  autosize
                  minRows={1}
                  maxRows={10}
                  value={m.content}
                  onChange={(e) => set({ messages: draft.messages.map((x, j) => (j === i ? { ...x, content: e.currentTarget.value } : x)) })}
                  style={{ flex: 1 }}
                  error={errors.at(`messages.${i}.content`)}
                />
                <ActionIcon variant="subtle" color="gray" aria-label={`Move message ${i + 1} up`} disabled={i === 0} onClick={() => set({ messages: move(draft.messages, i, i - 1) })}>
                  <IconArrowUp size={16} />
                </ActionIcon>
                <ActionIcon variant="subtle" color="gray" aria-label={`Move message ${i + 1} down`} disabled={i === draft.messages.length - 1} onClick={() => set({ messages: move(draft.messages, i, i + 1) })}>
                  <IconArrowDown size={16} />
                </ActionIcon>
                <ActionIcon variant="subtle" color="red" aria-label={`Remove message ${i + 1}`} onClick={() => set({ messages: draft.messages.filter((_, j) => j !== i) })}>
                  <IconTrash size={16} />
                </ActionIcon>
              </Group>
            ))}
            <Group>
              <Button size="xs" variant="light" leftSection={<IconPlus size={14} />} onClick={() => set({ messages: [...draft.messages, { role: 'user', content: '' }] })}>
                Add message
              </Button>
            </Group>
          </Stack>
        </Fieldset>

        <Fieldset legend="Inputs">
          <Stack gap="xs">
            {draft.inputs.map((input, i) => (
              <Group key={i} gap="xs" wrap="nowrap">
                <TextInput
                  aria-label={`Input ${i + 1} name`}
                  value={input.identifier}
                  onChange={(e) => set({ inputs: draft.inputs.map((x, j) => (j === i ? { ...x, identifier: e.currentTarget.value } : x)) })}
                  style={{ flex: 1 }}
                  className="mono"
                  error={errors.at(`inputs.${i}.identifier`)}
                />
                <NativeSelect
                  aria-label={`Input ${i + 1} type`}
                  value={input.type}
                  data={INPUT_TYPES}
                  onChange={(e) => set({ inputs: draft.inputs.map((x, j) => (j === i ? { ...x, type: e.currentTarget.value } : x)) })}
                  w={140}
                  error={errors.at(`inputs.${i}.type`)}
                />
                <ActionIcon variant="subtle" color="red" aria-label={`Remove input ${input.identifier || i + 1}`} onClick={() => set({ inputs: draft.inputs.filter((_, j) => j !== i) })}>
                  <IconTrash size={16} />
                </ActionIcon>
              </Group>
            ))}
            <Group>
              <Button size="xs" variant="light" leftSection={<IconPlus size={14} />} onClick={() => set({ inputs: [...draft.inputs, { identifier: '', type: 'str' }] })}>
                Add input
              </Button>
            </Group>
          </Stack>
        </Fieldset>

        <Fieldset legend="Outputs">
          <Stack gap="xs">
            {draft.outputs.map((output, i) => (
              <Stack key={i} gap={6}>
                <Group gap="xs" wrap="nowrap">
                  <TextInput
                    aria-label={`Output ${i + 1} name`}
                    value={output.identifier}
                    onChange={(e) => set({ outputs: draft.outputs.map((x, j) => (j === i ? { ...x, identifier: e.currentTarget.value } : x)) })}
                    style={{ flex: 1 }}
                    error={errors.at(`outputs.${i}.identifier`)}
                  />
                  <NativeSelect
                    aria-label={`Output ${i + 1} type`}
                    value={output.type}
                    data={OUTPUT_TYPES}
                    onChange={(e) => set({ outputs: draft.outputs.map((x, j) => (j === i ? { ...x, type: e.currentTarget.value as PromptOutputType } : x)) })}
                    w={140}
                    error={errors.at(`outputs.${i}.type`)}
                  />
                  <ActionIcon variant="subtle" color="red" aria-label={`Remove output ${output.identifier || i + 1}`} onClick={() => set({ outputs: draft.outputs.filter((_, j) => j !== i) })}>
                    <IconTrash size={16} />
                  </ActionIcon>
                </Group>
                {output.type === 'json_schema' && (
                  <div>
                    <Text size="xs" className="muted" mb={4}>
                      JSON Schema of {output.identifier || 'this output'} (sent to the model as response_format)
                    </Text>
                    <Suspense fallback={<Textarea aria-label={`JSON Schema of output ${i + 1}`} value={output.schemaText} readOnly autosize />}>
                      <JsonEditor
                        text={output.schemaText}
                        label={`JSON Schema of output ${output.identifier || i + 1}`}
                        maxHeight={320}
                        onChange={(text) => setDraft((d) => ({ ...d, outputs: d.outputs.map((x, j) => (j === i ? { ...x, schemaText: text } : x)) }))}
                      />
                    </Suspense>
                    {(schemaError?.index === i || errors.at(`outputs.${i}.json_schema`)) && (
                      <Text size="xs" c="red" role="alert" mt={4}>
                        {schemaError?.index === i ? schemaError.message : errors.at(`outputs.${i}.json_schema`)}
                      </Text>
                    )}
                  </div>
                )}
              </Stack>
            ))}
            <Group>
              <Button size="xs" variant="light" leftSection={<IconPlus size={14} />} onClick={() => set({ outputs: [...draft.outputs, { identifier: '', type: 'str', schemaText: '{\n  "type": "object",\n  "properties": {}\n}' }] })}>
                Add output
              </Button>
            </Group>
          </Stack>
        </Fieldset>

        {errors.elsewhere && (
          <Alert color="red" role="alert">
            {errors.elsewhere}
          </Alert>
        )}
        <Group align="flex-end" gap="sm">
          <TextInput label="Commit message" placeholder="What changed" value={commitMessage} onChange={(e) => setCommitMessage(e.currentTarget.value)} required style={{ flex: 1 }} error={errors.at('commitMessage')} />
          <Button type="submit" loading={save.isPending} disabled={!allowed}>
            Save version
          </Button>
          <Button variant="default" onClick={() => setDraft(draftOf(prompt))}>
            Discard changes
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

import { useState } from 'react';
import { Alert, Badge, Button, Group, Modal, Paper, PasswordInput, Select, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { IconBolt, IconPlus, IconTrash } from '@tabler/icons-react';
import { useParams } from '@tanstack/react-router';
import { can, useSession } from '../../api/session.ts';
import { fieldError } from '../../lib/form-errors.ts';
import { useDiscoverModels, useModelProviderMutations, useModelProviders, type CreateProviderInput, type ModelProvider, type ProviderTest } from '../../api/model-providers.ts';
import { ApiErrorAlert, ConfirmAction, RoleNote, Section, shortDate } from '../../components/Settings.tsx';
import { Unloaded, Loading } from '../../components/QueryState.tsx';
import { DialogActions } from '../../components/DialogActions.tsx';

const ROUTE = '/p/$projectId/settings/model-providers';
const KINDS = [
  { value: 'openai', label: 'OpenAI' },
  { value: 'openai_compatible', label: 'OpenAI-compatible server' },
  { value: 'azure_openai', label: 'Azure OpenAI' },
  { value: 'anthropic', label: 'Anthropic' },
];
const kindLabel = (kind: string) => KINDS.find((k) => k.value === kind)?.label ?? kind;

export default function ModelProvidersPage() {
  const { projectId } = useParams({ from: ROUTE });
  const { data: session } = useSession();
  const providers = useModelProviders(projectId);
  const m = useModelProviderMutations(projectId);
  const manage = can(session, 'modelProviders:manage');
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<ModelProvider | null>(null);
  const [tests, setTests] = useState<Record<string, ProviderTest | 'running'>>({});

  const runTest = async (p: ModelProvider) => {
    setTests((t) => ({ ...t, [p.id]: 'running' }));
    try {
      const result = await m.test.mutateAsync(p.id);
      setTests((t) => ({ ...t, [p.id]: result }));
    } catch (e) {
      setTests((t) => ({ ...t, [p.id]: { ok: false, model: p.models[0], latency_ms: 0, output: null, error: { code: 'request_failed', message: e instanceof Error ? e.message : String(e) } } }));
    }
  };

  return (
    <div className="settings-page">
      {!manage && <RoleNote>Your role ({session?.role.toLowerCase()}) can see the model providers and their models; only administrators add, test or remove them.</RoleNote>}
      <Section
        title="Model providers"
        description="LLM judges, custom evaluators, monitors and a prompt's Try it reach the provider their model names (<name>/<model>). Keys are sealed at rest and never shown again. Without a provider named openai, openai/* models use the server's OPENAI_API_KEY."
        actions={
          manage && (
            <Button leftSection={<IconPlus size={14} />} onClick={() => setCreating(true)}>
              Add provider
            </Button>
          )
        }
      >
        {!providers.isSuccess ? (
          <Unloaded query={providers} failed="The model providers could not be loaded" loading="Loading model providers" inline />
        ) : providers.data.length === 0 ? (
          <Text size="sm" className="muted">
            No provider set in the app yet.
          </Text>
        ) : (
          <Stack gap="sm">
            {providers.data.map((p) => {
              const test = tests[p.id];
              return (
                <Paper key={p.id} withBorder p="sm" radius="sm" component="article" aria-label={`Provider ${p.name}`}>
                  <Group justify="space-between" align="flex-start" gap="xs">
                    <Stack gap={4} style={{ minWidth: 0, flex: '1 1 240px' }}>
                      <Group gap={8} wrap="wrap">
                        <Text fw={600} className="mono" size="sm">
                          {p.name}
                        </Text>
                        <Badge size="sm" variant="light">
                          {kindLabel(p.kind)}
                        </Badge>
                        <Badge size="sm" variant="light" color={p.scope === 'organization' ? 'grape' : 'gray'}>
                          {p.scope === 'organization' ? 'Every project' : 'This project'}
                        </Badge>
                      </Group>
                      <Text size="xs" className="mono" style={{ overflowWrap: 'anywhere' }}>
                        {p.base_url ?? 'default address'} · {p.api_key_hint ? `key ${p.api_key_hint}` : 'no key'}
                      </Text>
                      <Group gap={4}>
                        {p.models.map((model) => (
                          <Badge key={model} size="xs" variant="outline" color="gray" tt="none">
                            {p.name}/{model}
                          </Badge>
                        ))}
                      </Group>
                      <Text size="xs" className="muted">
                        Added {shortDate(p.created_at)}
                      </Text>
                      {test === 'running' && <Loading label={`Testing ${p.name}`} size="xs" inline />}
                      {test && test !== 'running' && (
                        <Alert color={test.ok ? 'green' : 'red'} p="xs" title={test.ok ? `${test.model} answered in ${test.latency_ms} ms` : `${test.model} failed`}>
                          <Text size="xs" style={{ overflowWrap: 'anywhere' }}>
                            {test.ok ? `“${test.output ?? ''}”` : test.error?.message}
                          </Text>
                        </Alert>
                      )}
                    </Stack>
                    {manage && (
                      <Group gap={4}>
                        <Button size="compact-sm" variant="default" leftSection={<IconBolt size={14} />} onClick={() => void runTest(p)} disabled={test === 'running'}>
                          Test
                        </Button>
                        <Button size="compact-sm" variant="subtle" color="red" leftSection={<IconTrash size={14} />} onClick={() => setDeleting(p)} aria-label={`Delete ${p.name}`}>
                          Delete
                        </Button>
                      </Group>
                    )}
                  </Group>
                </Paper>
              );
            })}
          </Stack>
        )}
      </Section>
      {creating && <CreateProvider projectId={projectId} onClose={() => setCreating(false)} create={(body) => m.create.mutateAsync(body)} pending={m.create.isPending} error={m.create.error} />}
      <ConfirmAction
        target={deleting}
        title={(p) => `Delete the model provider ${p.name}?`}
        confirmLabel="Delete"
        pending={m.remove.isPending}
        error={m.remove.error}
        errorTitle="The provider could not be deleted"
        onClose={() => setDeleting(null)}
        onConfirm={(p) => m.remove.mutateAsync(p.id)}
      >
        Judges, monitors and prompts naming its models stop working until a provider of that name is added again.
      </ConfirmAction>
    </div>
  );
}

function CreateProvider({ projectId, onClose, create, pending, error }: { projectId: string; onClose: () => void; create: (b: CreateProviderInput) => Promise<unknown>; pending: boolean; error: unknown }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<CreateProviderInput['kind']>('openai');
  const [apiKey, setApiKey] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [models, setModels] = useState<string[]>([]);
  const [scope, setScope] = useState<'project' | 'organization'>('project');
  // The server's own list of models (its /models), loaded on request: picked from, or typed past.
  const discover = useDiscoverModels(projectId);
  const keyOptional = kind === 'openai_compatible';
  const submit = async () => {
    try {
      await create({
        name: name.trim(),
        kind,
        ...(apiKey.trim() ? { api_key: apiKey.trim() } : {}),
        ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}),
        models,
        scope,
      });
      onClose();
    } catch {
      /* shown below */
    }
  };
  return (
    <Modal opened onClose={onClose} title="Add a model provider">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Stack gap="sm">
          <TextInput label="Name" description="Models are named <name>/<model>" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(error, 'body.name')} />
          <Select label="Kind" data={KINDS} value={kind} allowDeselect={false} onChange={(v) => v && setKind(v as CreateProviderInput['kind'])} />
          <PasswordInput
            label="API key"
            description={keyOptional ? 'Optional: leave empty for a server without authentication. Sealed at rest; only its last four characters are shown again' : 'Sealed at rest; only its last four characters are shown again'}
            required={!keyOptional}
            value={apiKey}
            onChange={(e) => setApiKey(e.currentTarget.value)}
            error={fieldError(error, 'body.api_key')}
          />
          <TextInput
            label="Base URL"
            description={kind === 'azure_openai' ? 'The resource endpoint, https://<resource>.openai.azure.com' : kind === 'openai_compatible' ? 'Up to /v1, e.g. http://localhost:11434/v1' : 'Optional'}
            required={kind === 'azure_openai' || kind === 'openai_compatible'}
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.currentTarget.value)}
            error={fieldError(error, 'body.base_url')}
          />
          <TagsInput
            label="Models"
            description={kind === 'azure_openai' ? 'Deployment names: type each and press Enter' : 'Pick from the list the server gives (Load models), or type each and press Enter'}
            required
            value={models}
            onChange={setModels}
            data={discover.data?.models ?? []}
            splitChars={[',', ' ']}
            clearable
            maxDropdownHeight={240}
            comboboxProps={{ withinPortal: true }}
            error={fieldError(error, 'body.models') ?? fieldError(discover.error, 'body.api_key', 'body.base_url') ?? (discover.isError && !fieldError(discover.error, 'body.api_key', 'body.base_url') ? `The models could not be loaded: ${discover.error.message}` : undefined)}
          />
          <Group gap="xs">
            <Button
              size="xs"
              variant="default"
              loading={discover.isPending}
              onClick={() => discover.mutate({ kind, ...(apiKey.trim() ? { api_key: apiKey.trim() } : {}), ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}) })}
            >
              Load models
            </Button>
            {discover.data && (
              <Text size="xs" className="muted" role="status">
                {discover.data.models.length} models listed by the server: pick them in Models.
              </Text>
            )}
          </Group>
          <Select
            label="Available to"
            data={[
              { value: 'project', label: 'This project' },
              { value: 'organization', label: 'Every project of the organization' },
            ]}
            value={scope}
            allowDeselect={false}
            onChange={(v) => v && setScope(v)}
          />
          {error != null && <ApiErrorAlert error={error} title="The provider could not be added" shownAt={['body.name', 'body.api_key', 'body.base_url', 'body.models']} />}
          <DialogActions onClose={onClose}>
            <Button type="submit" loading={pending}>
              Add
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}

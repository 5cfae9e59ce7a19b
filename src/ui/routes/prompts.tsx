import { useState } from 'react';
import { TimeCell } from '../components/TimeCell.tsx';
import { Alert, Badge, Button, Group, Modal, SegmentedControl, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { can, useSession } from '../api/session.ts';
import { useCreatePrompt, useMemberNames, usePrompts, tagColor } from '../api/prompts.ts';
import { fieldError } from '../lib/form-errors.ts';
import { QueryState } from '../components/QueryState.tsx';
import { DialogActions } from '../components/DialogActions.tsx';

/** The project's prompts (organization prompts included), newest version each; search by handle. */
export default function PromptsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/prompts' });
  const { q = '' } = useSearch({ from: '/p/$projectId/prompts' });
  const navigate = useNavigate({ from: '/p/$projectId/prompts' });
  const prompts = usePrompts(projectId);
  const author = useMemberNames();
  const { data: session } = useSession();
  const [creating, setCreating] = useState(false);
  const needle = q.trim().toLowerCase();
  const rows = (prompts.data ?? []).filter((p) => !needle || (p.handle ?? p.id).toLowerCase().includes(needle));

  return (
    <div className="page">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={1} size="h3">
          Prompts
        </Title>
        <Group gap="sm">
          <TextInput
            aria-label="Search by handle"
            placeholder="Search by handle"
            leftSection={<IconSearch size={14} aria-hidden />}
            value={q}
            onChange={(e) => void navigate({ search: e.currentTarget.value ? { q: e.currentTarget.value } : {}, replace: true })}
            size="sm"
            w={240}
          />
          <Button leftSection={<IconPlus size={14} />} size="sm" onClick={() => setCreating(true)} disabled={!can(session, 'prompts:create')}>
            New prompt
          </Button>
        </Group>
      </Group>
      <QueryState
        query={prompts}
        failed="The prompts could not be loaded"
        loading="Loading prompts"
        empty={() =>
          rows.length === 0 && {
            title: needle ? 'No prompt matches' : 'No prompts yet',
            children: (
            <>
              {needle ? 'No handle contains this text.' : 'Create one: a handle, a system prompt, messages with {{variables}}, then fetch it by handle and tag from your code.'}
            </>
          ),
          }
        }
      >
        {() => (
          <div className="panel">
            <Table striped highlightOnHover verticalSpacing={6} aria-label="Prompts">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Handle</Table.Th>
                  <Table.Th>Scope</Table.Th>
                  <Table.Th>Version</Table.Th>
                  <Table.Th>Tags</Table.Th>
                  <Table.Th>Model</Table.Th>
                  <Table.Th>Author</Table.Th>
                  <Table.Th>Updated</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((p) => (
                  <Table.Tr key={p.id} data-prompt-id={p.id}>
                    <Table.Td>
                      <Link to="/p/$projectId/prompts/$promptId" params={{ projectId, promptId: p.id }} className="mono">
                        {p.handle ?? p.id}
                      </Link>
                    </Table.Td>
                    <Table.Td>
                      <Badge size="sm" variant="light" color={p.scope === 'ORGANIZATION' ? 'grape' : 'gray'} tt="none">
                        {p.scope === 'ORGANIZATION' ? 'organization' : 'project'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>v{p.version}</Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        {p.tags.map((t) => (
                          <Badge key={t} size="sm" variant="outline" tt="none" color={tagColor(t)}>
                            {t}
                          </Badge>
                        ))}
                      </Group>
                    </Table.Td>
                    <Table.Td className="mono">{p.model}</Table.Td>
                    <Table.Td>{author(p.authorId)}</Table.Td>
                    <TimeCell at={p.versionCreatedAt} />
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </QueryState>
      <NewPromptModal projectId={projectId} opened={creating} onClose={() => setCreating(false)} />
    </div>
  );
}

function NewPromptModal({ projectId, opened, onClose }: { projectId: string; opened: boolean; onClose: () => void }) {
  const [handle, setHandle] = useState('');
  const [scope, setScope] = useState<'PROJECT' | 'ORGANIZATION'>('PROJECT');
  const create = useCreatePrompt(projectId);
  const navigate = useNavigate();
  const submit = async () => {
    const prompt = await create.mutateAsync({ handle: handle.trim(), scope });
    onClose();
    await navigate({ to: '/p/$projectId/prompts/$promptId', params: { projectId, promptId: prompt.id } });
  };
  return (
    <Modal opened={opened} onClose={onClose} title="New prompt">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit().catch(() => undefined);
        }}
      >
        <Stack gap="sm">
          <TextInput
            label="Handle"
            description="Lowercase letters, digits, _ or -; optionally one / and a second part: support/reply"
            value={handle}
            onChange={(e) => setHandle(e.currentTarget.value)}
            required
            data-autofocus
            error={fieldError(create.error, 'handle')}
          />
          <div>
            <Text size="sm" fw={500} id="new-prompt-scope">
              Scope
            </Text>
            <SegmentedControl
              aria-labelledby="new-prompt-scope"
              value={scope}
              onChange={(v) => setScope(v)}
              data={[
                { value: 'PROJECT', label: 'This project' },
                { value: 'ORGANIZATION', label: 'The organization' },
              ]}
            />
          </div>
          {create.isError && !fieldError(create.error, 'handle') && <Alert color="red">{create.error.message}</Alert>}
          <DialogActions onClose={onClose}>
            <Button type="submit" loading={create.isPending}>
              Create
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}

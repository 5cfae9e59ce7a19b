import { useState } from 'react';
import { Alert, Button, Select, Stack, Text } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { useMintProjectKey } from '../api/api-keys.ts';
import { can, lastProject, useSession } from '../api/session.ts';
import { AuthCard } from '../components/AuthCard.tsx';
import { Snippet } from '../components/Copy.tsx';

/**
 * `{endpoint}/authorize`, the page the LangWatch SDKs' login() sends people to: a new project
 * key to paste at its prompt. Keys are stored only as hashes, so an existing one cannot be
 * shown again: the page makes a new one.
 */
export default function AuthorizePage() {
  const { data: session } = useSession();
  const projects = session?.projects ?? [];
  const [projectId, setProjectId] = useState<string | null>(() => (session ? lastProject(session) : null) ?? projects[0]?.id ?? null);
  const [token, setToken] = useState<string | null>(null);
  const mint = useMintProjectKey(projectId ?? '', (created) => setToken(created.token));
  const allowed = can(session, 'apiKeys:manage');

  return (
    <AuthCard title="Authorize an SDK" subtitle="Create a project API key and paste it where the SDK asks for it (langwatch.login(), LANGWATCH_API_KEY).">
      <Stack gap="sm">
        <Select
          label="Project"
          data={projects.map((p) => ({ value: p.id, label: p.name }))}
          value={projectId}
          onChange={(value) => {
            setProjectId(value);
            setToken(null);
          }}
          allowDeselect={false}
          error={projects.length === 0 ? 'This organization has no project yet: create one in its settings first.' : undefined}
        />
        {!allowed && <Alert color="yellow">Only administrators can create project keys: ask one for a key.</Alert>}
        {token ? (
          <>
            <Snippet code={token} label="API key" />
            <Text size="sm" className="muted">
              Shown this once: copy it now. It sends traces to and reads this project only.
            </Text>
          </>
        ) : (
          <Button leftSection={<IconKey size={14} />} onClick={() => mint.mutate()} loading={mint.isPending} disabled={!allowed || !projectId}>
            Create a project key
          </Button>
        )}
        {mint.isError && <Alert color="red">{mint.error.message}</Alert>}
      </Stack>
    </AuthCard>
  );
}

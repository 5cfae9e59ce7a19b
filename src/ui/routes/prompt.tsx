import { Alert, Badge, Group, Tabs, Text, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { usePromptVersions, tagColor } from '../api/prompts.ts';
import { PromptEditor } from '../components/PromptEditor.tsx';
import { PromptHistory } from '../components/PromptHistory.tsx';
import { PromptPreview } from '../components/PromptPreview.tsx';
import { PromptCode } from '../components/PromptCode.tsx';
import type { PromptSearch } from '../lib/page-searches.ts';
import { Loading } from '../components/QueryState.tsx';

/** One prompt: edit and save versions, history with diff, restore and tags, compile and run, code. */
export default function PromptPage() {
  const { projectId, promptId } = useParams({ from: '/p/$projectId/prompts/$promptId' });
  const search = useSearch({ from: '/p/$projectId/prompts/$promptId' });
  const navigate = useNavigate({ from: '/p/$projectId/prompts/$promptId' });
  const versions = usePromptVersions(projectId, promptId);
  const tab = search.tab ?? 'edit';
  const setSearch = (next: PromptSearch) => void navigate({ search: next, replace: true });

  const back = (
    <Link to="/p/$projectId/prompts" params={{ projectId }} className="back-link">
      <IconArrowLeft size={14} aria-hidden /> Prompts
    </Link>
  );
  if (versions.isPending) {
    return <Loading label="Loading the prompt" />;
  }
  if (versions.isError) {
    return (
      <div className="page">
        {back}
        <Alert color={'status' in versions.error && versions.error.status === 404 ? 'gray' : 'red'} title="This prompt cannot be shown">
          {versions.error.message}
        </Alert>
      </div>
    );
  }
  const all = versions.data;
  const newest = all[0];
  return (
    <div className="page">
      <div>
        {back}
        <Group gap="sm" mt={4} align="center">
          <Title order={1} size="h3" className="mono">
            {newest.handle ?? newest.id}
          </Title>
          <Badge variant="light" color={newest.scope === 'ORGANIZATION' ? 'grape' : 'gray'} tt="none">
            {newest.scope === 'ORGANIZATION' ? 'organization' : 'project'}
          </Badge>
          <Text size="sm" className="muted">
            v{newest.version} · {all.length} version{all.length === 1 ? '' : 's'}
          </Text>
          {all
            .flatMap((v) => v.tags.map((t) => [t, v.version] as const))
            .map(([t, v]) => (
              <Badge key={t} variant="outline" tt="none" color={tagColor(t)}>
                {t} → v{v}
              </Badge>
            ))}
        </Group>
      </div>
      <Tabs value={tab} onChange={(v) => setSearch({ ...search, tab: (v ?? 'edit') as PromptSearch['tab'] })} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="edit">Edit</Tabs.Tab>
          <Tabs.Tab value="history">History</Tabs.Tab>
          <Tabs.Tab value="preview">Preview and try</Tabs.Tab>
          <Tabs.Tab value="code">Code</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="edit" pt="md">
          <PromptEditor key={newest.versionId} projectId={projectId} prompt={newest} onSaved={() => setSearch({ tab: 'history' })} />
        </Tabs.Panel>
        <Tabs.Panel value="history" pt="md">
          <PromptHistory projectId={projectId} promptId={promptId} versions={all} compare={[search.a ?? all[1]?.version ?? newest.version, search.b ?? newest.version]} onCompare={(a, b) => setSearch({ ...search, a, b })} />
        </Tabs.Panel>
        <Tabs.Panel value="preview" pt="md">
          <PromptPreview projectId={projectId} promptId={promptId} versions={all} />
        </Tabs.Panel>
        <Tabs.Panel value="code" pt="md">
          <PromptCode prompt={newest} tags={[...new Set(all.flatMap((v) => v.tags))]} />
        </Tabs.Panel>
      </Tabs>
    </div>
  );
}

import { useState } from 'react';
import { TimeCell } from './TimeCell.tsx';
import { Alert, Badge, Button, CloseButton, Group, Menu, Modal, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconHistory, IconTag } from '@tabler/icons-react';
import { useMemberNames, usePromptMutations, tagColor } from '../api/prompts.ts';
import { can, useSession } from '../api/session.ts';
import type { Prompt } from '../api/prompts.ts';
import { diffLines } from '../lib/diff.ts';

interface Props {
  projectId: string;
  promptId: string;
  versions: Prompt[];
  compare: [number, number];
  onCompare: (a: number, b: number) => void;
}

/** Every version (who, what, when), restore, tags moved in one action, and a diff of any two. */
export function PromptHistory({ projectId, promptId, versions, compare, onCompare }: Props) {
  const author = useMemberNames();
  const { restore, tag, untag } = usePromptMutations(projectId, promptId);
  const { data: session } = useSession();
  const allowed = can(session, 'prompts:update');
  const [customFor, setCustomFor] = useState<Prompt | null>(null);
  const [custom, setCustom] = useState('');
  const [a, b] = compare;
  const left = versions.find((v) => v.version === a) ?? versions[versions.length - 1];
  const right = versions.find((v) => v.version === b) ?? versions[0];
  const error = restore.error ?? tag.error ?? untag.error;

  const moveTag = (name: string, version: Prompt) =>
    tag.mutate(
      { tag: name, versionId: version.versionId },
      { onSuccess: () => notifications.show({ message: `${name} → v${version.version}`, color: 'teal' }) },
    );

  return (
    <Stack gap="md">
      {error && <Alert color="red">{error.message}</Alert>}
      <div className="panel">
        <Table verticalSpacing={6} aria-label="Versions">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Version</Table.Th>
              <Table.Th>Commit message</Table.Th>
              <Table.Th>Author</Table.Th>
              <Table.Th>When</Table.Th>
              <Table.Th>Tags</Table.Th>
              <Table.Th>
                <span className="sr-only">Actions</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {versions.map((v) => (
              <Table.Tr key={v.versionId} data-version={v.version}>
                <Table.Td className="nowrap">v{v.version}</Table.Td>
                <Table.Td>{v.commitMessage ?? <span className="muted">–</span>}</Table.Td>
                <Table.Td>{author(v.authorId)}</Table.Td>
                <TimeCell at={v.versionCreatedAt} />
                <Table.Td>
                  <Group gap={4}>
                    {v.tags.map((t) => (
                      <Badge
                        key={t}
                        size="sm"
                        variant="outline"
                        tt="none"
                        color={tagColor(t)}
                        rightSection={allowed ? <CloseButton size="xs" aria-label={`Remove tag ${t}`} onClick={() => untag.mutate(t)} /> : undefined}
                      >
                        {t}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap" justify="flex-end">
                    <Menu position="bottom-end" withinPortal>
                      <Menu.Target>
                        <Button size="compact-xs" variant="default" leftSection={<IconTag size={12} />} disabled={!allowed} aria-label={`Tag version ${v.version}`}>
                          Tag
                        </Button>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Label>Point a tag at v{v.version}</Menu.Label>
                        <Menu.Item onClick={() => moveTag('production', v)}>production</Menu.Item>
                        <Menu.Item onClick={() => moveTag('staging', v)}>staging</Menu.Item>
                        <Menu.Item
                          onClick={() => {
                            setCustom('');
                            setCustomFor(v);
                          }}
                        >
                          Another tag…
                        </Menu.Item>
                      </Menu.Dropdown>
                    </Menu>
                    <Button
                      size="compact-xs"
                      variant="default"
                      leftSection={<IconHistory size={12} />}
                      disabled={!allowed || v.version === versions[0].version}
                      loading={restore.isPending && restore.variables === v.versionId}
                      onClick={() => restore.mutate(v.versionId, { onSuccess: (p) => notifications.show({ message: `Restored as v${p.version}`, color: 'teal' }) })}
                      aria-label={`Restore version ${v.version}`}
                    >
                      Restore
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>

      <Group gap="sm" align="flex-end">
        <Title order={2} size="h4" mr="md">
          Compare
        </Title>
        <NativeSelect aria-label="Older version" label="From" size="xs" value={String(left.version)} data={versions.map((v) => ({ value: String(v.version), label: `v${v.version}` }))} onChange={(e) => onCompare(Number(e.currentTarget.value), right.version)} />
        <NativeSelect aria-label="Newer version" label="To" size="xs" value={String(right.version)} data={versions.map((v) => ({ value: String(v.version), label: `v${v.version}` }))} onChange={(e) => onCompare(left.version, Number(e.currentTarget.value))} />
      </Group>
      <VersionDiff left={left} right={right} />

      <Modal opened={customFor !== null} onClose={() => setCustomFor(null)} title={`Tag v${customFor?.version ?? ''}`}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (customFor) moveTag(custom.trim(), customFor);
            setCustomFor(null);
          }}
        >
          <Stack gap="sm">
            <TextInput label="Tag" description="A letter, then lowercase letters, digits, _ or -" value={custom} onChange={(e) => setCustom(e.currentTarget.value)} required data-autofocus />
            <Group justify="flex-end">
              <Button type="submit">Move tag here</Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Stack>
  );
}

/** The fields of a version as texts, in the order the editor shows them. */
function fieldsOf(p: Prompt): [string, string][] {
  return [
    ['Model', p.model],
    ['System prompt', p.prompt],
    ['Messages', p.messages.map((m) => `[${m.role}]\n${m.content}`).join('\n\n')],
    ['Inputs', p.inputs.map((i) => `${i.identifier}: ${i.type}`).join('\n')],
    ['Outputs', p.outputs.map((o) => `${o.identifier}: ${o.type}${o.json_schema ? `\n${JSON.stringify(o.json_schema, null, 2)}` : ''}`).join('\n')],
  ];
}

/** Side by side, field by field; unchanged fields collapse to one line. */
function VersionDiff({ left, right }: { left: Prompt; right: Prompt }) {
  const before = fieldsOf(left);
  const after = fieldsOf(right);
  return (
    <Stack gap="sm" data-testid="version-diff">
      {before.map(([name, text], i) => {
        const other = after[i][1];
        if (text === other) {
          return (
            <Text key={name} size="sm" className="muted">
              {name}: unchanged
            </Text>
          );
        }
        return (
          <div key={name} className="diff" role="group" aria-label={`${name}: v${left.version} and v${right.version}`}>
            <div className="diff-title">
              {name} <span className="muted">(v{left.version} → v{right.version})</span>
            </div>
            <table className="diff-table">
              <tbody>
                {diffLines(text, other).map((row, k) => (
                  <tr key={k} className={`diff-${row.kind}`}>
                    <td className="diff-n">{row.left?.n ?? ''}</td>
                    <td className={row.left && row.kind !== 'same' ? 'diff-del' : undefined}>
                      {row.left && row.kind !== 'same' && <span className="sr-only">removed: </span>}
                      {row.left?.text}
                    </td>
                    <td className="diff-n">{row.right?.n ?? ''}</td>
                    <td className={row.right && row.kind !== 'same' ? 'diff-ins' : undefined}>
                      {row.right && row.kind !== 'same' && <span className="sr-only">added: </span>}
                      {row.right?.text}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      })}
    </Stack>
  );
}

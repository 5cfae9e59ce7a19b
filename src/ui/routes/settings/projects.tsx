import { useState } from 'react';
import { Button, Group, Modal, NumberInput, Stack, Table, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconKey, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useNavigate, useParams } from '@tanstack/react-router';
import { can, useSession } from '../../api/session.ts';
import { useProjectMutations, useProjects } from '../../api/organization.ts';
import type { Project } from '../../api/organization.ts';
import { ApiErrorAlert, ConfirmAction, RoleNote, Section, ShownOnce, shortDate } from '../../components/Settings.tsx';
import { fieldError } from '../../lib/form-errors.ts';
import { Unloaded } from '../../components/QueryState.tsx';
import { DialogActions } from '../../components/DialogActions.tsx';

/** A number field's value as retention days: empty keeps traces forever (null). */
const retentionOf = (v: string | number) => (v === '' ? null : Number(v));

export default function ProjectsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/settings' });
  const { data: session } = useSession();
  const navigate = useNavigate();
  const projects = useProjects();
  const m = useProjectMutations();
  const [name, setName] = useState('');
  const [retention, setRetention] = useState<string | number>('');
  const [issued, setIssued] = useState<{ projectId: string; project: string; token: string } | null>(null);
  const [editing, setEditing] = useState<Project | null>(null);
  const [deleting, setDeleting] = useState<Project | null>(null);
  const [rotating, setRotating] = useState<Project | null>(null);
  const mayCreate = can(session, 'project:create');
  const mayUpdate = can(session, 'project:update');
  const mayDelete = can(session, 'project:delete');
  const mayRotate = can(session, 'apiKeys:manage');

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    const created = await m.create.mutateAsync({ name, ...(retention === '' ? {} : { retentionDays: retentionOf(retention) }) });
    setIssued({ projectId: created.project.id, project: created.project.name, token: created.token });
    setName('');
    setRetention('');
  };

  const rotate = async (project: Project) => {
    const rotated = await m.rotateKey.mutateAsync(project.id);
    setIssued({ projectId: project.id, project: project.name, token: rotated.token });
  };

  const remove = async (project: Project) => {
    await m.remove.mutateAsync(project.id);
    setDeleting(null);
    if (issued?.projectId === project.id) setIssued(null); // a deleted project's key is gone too
    notifications.show({ message: `Project ${project.name} deleted`, color: 'teal' });
    if (project.id === projectId) {
      const next = projects.data?.find((p) => p.id !== project.id);
      await navigate(next ? { to: '/p/$projectId/settings/projects', params: { projectId: next.id } } : { to: '/' });
    }
  };

  return (
    <div className="settings-page">
      {mayCreate ? (
        <Section title="New project" description="Each project has its own traces, prompts, webhooks and project API key.">
          <form onSubmit={(e) => void create(e).catch(() => undefined)}>
            <Group align="flex-end" gap="sm">
              <TextInput label="Project name" required value={name} onChange={(e) => setName(e.currentTarget.value)} w={280} maw="100%" maxLength={100} error={fieldError(m.create.error, 'name')} />
              <NumberInput
                label="Retention (days)"
                description="Empty: keep traces forever"
                value={retention}
                onChange={setRetention}
                min={1}
                max={3650}
                allowDecimal={false}
                w={200}
              />
              <Button type="submit" leftSection={<IconPlus size={14} />} loading={m.create.isPending} disabled={!name.trim()}>
                Create project
              </Button>
            </Group>
          </form>
          <Stack mt="sm" gap="sm">
            <ApiErrorAlert error={m.create.error} title="The project was not created" shownAt={['name']} />
          </Stack>
        </Section>
      ) : (
        <RoleNote>Your role ({session?.role.toLowerCase()}) can see the projects; only administrators create, change or delete them.</RoleNote>
      )}
      {issued && (
        <ShownOnce label={`Project key of ${issued.project}`} value={issued.token}>
          Send it as <code>X-Auth-Token</code> (or <code>Authorization: Bearer</code>) to send traces to this project.
        </ShownOnce>
      )}
      <Section title="Projects" description={`The projects of ${session?.organization.name ?? 'the organization'}.`}>
        {!projects.isSuccess ? (
          <Unloaded query={projects} failed="The projects could not be loaded" loading="Loading projects" inline />
        ) : (
          <div className="table-scroll">
            <Table className="settings-table" striped highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Id</Table.Th>
                  <Table.Th>Retention</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>
                    <span className="visually-hidden">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {projects.data.map((p) => (
                  <Table.Tr key={p.id} data-project-id={p.id}>
                    <Table.Td fw={500}>{p.name}</Table.Td>
                    <Table.Td className="mono" fz="xs">
                      {p.id}
                    </Table.Td>
                    <Table.Td>{p.retentionDays === null ? 'forever' : `${p.retentionDays} days`}</Table.Td>
                    <Table.Td className="nowrap">{shortDate(p.createdAt)}</Table.Td>
                    <Table.Td>
                      <Group gap={4} justify="flex-end" wrap="nowrap">
                        {mayUpdate && (
                          <Button size="compact-sm" variant="subtle" leftSection={<IconPencil size={14} />} onClick={() => setEditing(p)} aria-label={`Edit ${p.name}`}>
                            Edit
                          </Button>
                        )}
                        {mayRotate && (
                          <Button size="compact-sm" variant="subtle" leftSection={<IconKey size={14} />} onClick={() => setRotating(p)} aria-label={`Rotate the key of ${p.name}`}>
                            Rotate key
                          </Button>
                        )}
                        {mayDelete && (
                          <Button size="compact-sm" variant="subtle" color="red" leftSection={<IconTrash size={14} />} onClick={() => setDeleting(p)} aria-label={`Delete ${p.name}`}>
                            Delete
                          </Button>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </Section>
      {editing && <EditProject project={editing} onClose={() => setEditing(null)} />}
      <ConfirmAction
        target={rotating}
        title={(project) => `Rotate the key of ${project.name}?`}
        confirmLabel="Rotate key"
        color="orange"
        pending={m.rotateKey.isPending}
        error={m.rotateKey.error}
        onClose={() => setRotating(null)}
        onConfirm={rotate}
      >
        A new project key replaces the current one, which stops working at once: update every application that sends traces with it.
      </ConfirmAction>
      {deleting && <DeleteProject project={deleting} pending={m.remove.isPending} error={m.remove.error} onClose={() => setDeleting(null)} onConfirm={() => void remove(deleting).catch(() => undefined)} />}
    </div>
  );
}

function EditProject({ project, onClose }: { project: Project; onClose: () => void }) {
  const { update } = useProjectMutations();
  const [name, setName] = useState(project.name);
  const [retention, setRetention] = useState<string | number>(project.retentionDays ?? '');
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    await update.mutateAsync({ id: project.id, body: { name, retentionDays: retentionOf(retention) } });
    notifications.show({ message: 'Project saved', color: 'teal' });
    onClose();
  };
  return (
    <Modal opened onClose={onClose} title={`Edit ${project.name}`}>
      <form onSubmit={(e) => void save(e).catch(() => undefined)}>
        <Stack gap="sm">
          <TextInput label="Project name" required value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={100} data-autofocus />
          <NumberInput label="Retention (days)" description="Traces older than this are deleted; empty keeps them forever" value={retention} onChange={setRetention} min={1} max={3650} allowDecimal={false} />
          <ApiErrorAlert error={update.error} title="Not saved" />
          <DialogActions onClose={onClose}>
            <Button type="submit" loading={update.isPending} disabled={!name.trim()}>
              Save
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}

/** Deleting a project deletes all its data: the name, typed, confirms it. */
function DeleteProject({ project, pending, error, onClose, onConfirm }: { project: Project; pending: boolean; error: unknown; onClose: () => void; onConfirm: () => void }) {
  const [typed, setTyped] = useState('');
  return (
    <Modal opened onClose={onClose} title={`Delete ${project.name}?`}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (typed === project.name) onConfirm();
        }}
      >
        <Stack gap="sm">
          <Text size="sm">
            This deletes the project with all its traces, prompts, annotations, evaluations, webhooks and keys. It cannot be undone.
          </Text>
          <TextInput label={`Type the project name (${project.name}) to confirm`} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" data-autofocus />
          <ApiErrorAlert error={error} title="Not deleted" />
          <DialogActions onClose={onClose}>
            <Button type="submit" color="red" loading={pending} disabled={typed !== project.name}>
              Delete project
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}

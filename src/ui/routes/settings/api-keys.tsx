import { useMemo, useState } from 'react';
import { ActionIcon, Badge, Button, Checkbox, Group, Modal, NativeSelect, SegmentedControl, Stack, Table, Text, TextInput, Textarea } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconKey, IconPlus, IconTrash } from '@tabler/icons-react';
import { ACTIONS, RESOURCES } from '../../../platform/auth/permissions.schema.ts';
import { can, useSession } from '../../api/session.ts';
import { useApiKeyMutations, useApiKeys } from '../../api/api-keys.ts';
import { useMembers } from '../../api/organization.ts';
import type { ApiKey } from '../../api/api-keys.ts';
import type { CreateKeyBody, KeyBinding } from '../../api/types.ts';
import type { Session } from '../../api/session.ts';
import { ApiErrorAlert, ConfirmAction, RoleNote, Section, ShownOnce, shortDate } from '../../components/Settings.tsx';
import { fieldError } from '../../lib/form-errors.ts';
import { Unloaded } from '../../components/QueryState.tsx';
import { DialogActions } from '../../components/DialogActions.tsx';

type Mode = NonNullable<CreateKeyBody['permissionMode']>;
type BindingRole = NonNullable<KeyBinding['role']>;
interface BindingRow {
  role: BindingRole;
  /** `ORGANIZATION:<id>` or `PROJECT:<id>`. */
  scope: string;
}
const EXPIRY = [
  { value: '', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
  { value: 'date', label: 'On a date…' },
];

export default function ApiKeysPage() {
  const { data: session } = useSession();
  const keys = useApiKeys();
  const members = useMembers();
  const { revoke } = useApiKeyMutations();
  const [creating, setCreating] = useState(false);
  const [issued, setIssued] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const isAdmin = can(session, 'apiKeys:manage');
  const mayCreate = can(session, 'apiKeys:create');
  const emailOf = useMemo(() => new Map((members.data ?? []).map((m) => [m.userId, m.email])), [members.data]);
  const scopeName = (type: string, id: string) =>
    type === 'ORGANIZATION' ? 'the organization' : `project ${session?.projects.find((p) => p.id === id)?.name ?? id}`;

  return (
    <div className="settings-page">
      {!isAdmin && mayCreate && (
        <RoleNote>
          Your role ({session?.role.toLowerCase()}) sees and revokes its own keys, and creates personal keys that act as you (never with more than you may do). Administrators see every key and create service keys.
        </RoleNote>
      )}
      {issued && (
        <ShownOnce label={`Token of ${issued.name}`} value={issued.token}>
          Send it as <code>Authorization: Bearer …</code>.
        </ShownOnce>
      )}
      <Section
        title="API keys"
        description="Keys for scripts and services: what each may do (its role or permissions), where (bindings), and until when."
        actions={
          mayCreate && (
            <Button leftSection={<IconPlus size={14} />} onClick={() => setCreating(true)}>
              Create API key
            </Button>
          )
        }
      >
        {!keys.isSuccess ? (
          <Unloaded query={keys} failed="The API keys could not be loaded" loading="Loading API keys" inline />
        ) : keys.data.length === 0 ? (
          <Text size="sm" className="muted">
            No API key yet.
          </Text>
        ) : (
          <div className="table-scroll">
            <Table className="settings-table" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Type</Table.Th>
                  <Table.Th>Access</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Last used</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>
                    <span className="visually-hidden">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {keys.data.map((k) => (
                  <Table.Tr key={k.id} data-key-id={k.id} data-key-name={k.name}>
                    <Table.Td>
                      <Text size="sm" fw={500}>
                        {k.name}
                      </Text>
                      {k.description && (
                        <Text size="xs" className="muted">
                          {k.description}
                        </Text>
                      )}
                      <Text size="xs" className="muted mono">
                        {k.id}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {k.keyType}
                      {k.ownerUserId && (
                        <Text size="xs" className="muted">
                          as {emailOf.get(k.ownerUserId) ?? k.ownerUserId}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs">
                        {k.keyType === 'project'
                          ? `sends and reads data of ${scopeName('PROJECT', k.projectId ?? '')}`
                          : k.bindings.map((b) => `${b.role.toLowerCase()} on ${scopeName(b.scopeType, b.scopeId)}`).join('; ')}
                      </Text>
                      {k.permissionMode !== 'all' && (
                        <Text size="xs" className="muted" title={k.permissions.join(', ')}>
                          {k.permissionMode === 'readonly' ? 'read-only' : `restricted to ${k.permissions.length} permission${k.permissions.length === 1 ? '' : 's'}`}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td className="nowrap">{shortDate(k.createdAt)}</Table.Td>
                    <Table.Td className="nowrap" title="To the minute">{k.lastUsedAt ? shortDate(k.lastUsedAt) : 'never'}</Table.Td>
                    <Table.Td className="nowrap">{k.expiresAt ? shortDate(k.expiresAt) : 'never'}</Table.Td>
                    <Table.Td>
                      <Badge size="sm" variant="light" color={k.status === 'active' ? 'teal' : 'gray'}>
                        {k.status}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {k.status === 'active' && (isAdmin || (k.ownerUserId === session?.user.id && can(session, 'apiKeys:delete'))) && (
                        <ActionIcon variant="subtle" color="red" aria-label={`Revoke ${k.name}`} onClick={() => setRevoking(k)}>
                          <IconTrash size={16} />
                        </ActionIcon>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </Section>
      {creating && session && (
        <CreateKey
          session={session}
          members={(members.data ?? []).map((m) => ({ value: m.userId, label: `${m.email}${m.userId === session.user.id ? ' (you)' : ''}` }))}
          onClose={() => setCreating(false)}
          onCreated={(name, token) => {
            setCreating(false);
            setIssued({ name, token });
          }}
        />
      )}
      <ConfirmAction
        target={revoking}
        title={(key) => `Revoke ${key.name}?`}
        confirmLabel="Revoke key"
        pending={revoke.isPending}
        error={revoke.error}
        errorTitle="Not revoked"
        onClose={() => setRevoking(null)}
        onConfirm={(key) => revoke.mutateAsync(key.id).then(() => notifications.show({ message: `${key.name} revoked`, color: 'teal' }))}
      >
        The key stops working at once. This cannot be undone.
      </ConfirmAction>
    </div>
  );
}

/** Every option of POST /api/api-keys, each shown when it applies. */
function CreateKey({ session, members, onClose, onCreated }: { session: Session; members: { value: string; label: string }[]; onClose: () => void; onCreated: (name: string, token: string) => void }) {
  const { create } = useApiKeyMutations();
  const isAdmin = can(session, 'apiKeys:manage');
  const orgScope = `ORGANIZATION:${session.organization.id}`;
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [keyType, setKeyType] = useState<'personal' | 'service'>('personal');
  const [owner, setOwner] = useState('');
  const [mode, setMode] = useState<Mode>('all');
  const [permissions, setPermissions] = useState<Set<string>>(new Set());
  const [bindings, setBindings] = useState<BindingRow[]>([{ role: session.role, scope: orgScope }]);
  const [projectIds, setProjectIds] = useState<string[]>([]);
  const [expiry, setExpiry] = useState('');
  const [expiryDate, setExpiryDate] = useState('');

  const scopes = [{ value: orgScope, label: `Organization: ${session.organization.name}` }, ...session.projects.map((p) => ({ value: `PROJECT:${p.id}`, label: `Project: ${p.name}` }))];
  const roles: BindingRole[] = mode === 'restricted' ? ['CUSTOM'] : ['ADMIN', 'MEMBER', 'VIEWER'];
  const needsBindings = keyType === 'personal';
  // Phones: the dialog takes the screen, choices stack, and nothing runs past the edge.
  const narrow = useMediaQuery('(max-width: 760px)') ?? false;
  const orientation = narrow ? 'vertical' : 'horizontal';

  const body = (): CreateKeyBody => {
    const expiresAt =
      expiry === 'date' ? (expiryDate ? new Date(`${expiryDate}T23:59:59`).toISOString() : undefined) : expiry ? new Date(Date.now() + Number(expiry) * 86_400_000).toISOString() : undefined;
    return {
      name: name.trim(),
      ...(description.trim() ? { description: description.trim() } : {}),
      keyType,
      ...(keyType === 'personal' && owner ? { assignedToUserId: owner } : {}),
      permissionMode: mode,
      ...(mode === 'restricted' ? { permissions: [...permissions] } : {}),
      ...(bindings.length
        ? {
            bindings: bindings.map((b) => {
              const [scopeType, scopeId] = [b.scope.slice(0, b.scope.indexOf(':')), b.scope.slice(b.scope.indexOf(':') + 1)];
              return { role: mode === 'restricted' ? 'CUSTOM' : b.role, scopeType: scopeType as 'ORGANIZATION' | 'PROJECT', scopeId };
            }),
          }
        : {}),
      ...(keyType === 'service' && projectIds.length ? { projectIds } : {}),
      ...(expiresAt ? { expiresAt } : {}),
    };
  };

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const created = await create.mutateAsync(body());
    onCreated(created.apiKey.name, created.token);
  };

  const setMode2 = (next: Mode) => {
    setMode(next);
    setBindings((rows) => rows.map((r) => ({ ...r, role: next === 'restricted' ? 'CUSTOM' : r.role === 'CUSTOM' ? 'VIEWER' : r.role })));
  };
  const togglePermission = (p: string, on: boolean) =>
    setPermissions((set) => {
      const next = new Set(set);
      if (on) next.add(p);
      else next.delete(p);
      return next;
    });

  return (
    <Modal opened onClose={onClose} title="Create an API key" size="xl" fullScreen={narrow}>
      <form onSubmit={(e) => void submit(e).catch(() => undefined)}>
        <Stack gap="md">
          <Group grow align="flex-start">
            <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={100} data-autofocus error={fieldError(create.error, 'name')} />
            <NativeSelect label="Expires" value={expiry} onChange={(e) => setExpiry(e.currentTarget.value)} data={EXPIRY} />
            {expiry === 'date' && <TextInput label="Expiry date" type="date" required value={expiryDate} onChange={(e) => setExpiryDate(e.currentTarget.value)} />}
          </Group>
          <Textarea label="Description (optional)" value={description} onChange={(e) => setDescription(e.currentTarget.value)} maxLength={500} autosize minRows={1} />

          <Stack gap={4}>
            <Text size="sm" fw={500} id="key-type-label">
              Type
            </Text>
            <SegmentedControl
              aria-labelledby="key-type-label"
              orientation={orientation}
              value={keyType}
              onChange={(v) => setKeyType(v)}
              data={[
                { value: 'personal', label: 'Personal: acts as a member' },
                { value: 'service', label: 'Service: not tied to a user', disabled: !isAdmin },
              ]}
            />
            {!isAdmin && (
              <Text size="xs" className="muted">
                Only administrators create service keys or keys for another member.
              </Text>
            )}
          </Stack>

          {keyType === 'personal' && isAdmin && (
            <NativeSelect
              label="Owner"
              description="The key acts as this member and never does more than their role allows"
              value={owner}
              onChange={(e) => setOwner(e.currentTarget.value)}
              data={[{ value: '', label: 'You' }, ...members.filter((m) => m.value !== session.user.id)]}
            />
          )}

          <Stack gap={4}>
            <Text size="sm" fw={500} id="key-mode-label">
              Permission mode
            </Text>
            <SegmentedControl
              aria-labelledby="key-mode-label"
              orientation={orientation}
              value={mode}
              onChange={(v) => setMode2(v)}
              data={[
                { value: 'all', label: 'All of the roles' },
                { value: 'readonly', label: 'Read-only' },
                { value: 'restricted', label: 'Restricted to permissions' },
              ]}
            />
          </Stack>

          {mode === 'restricted' && (
            <fieldset style={{ border: '1px solid var(--sg-border)', borderRadius: 6, padding: '8px 12px', overflowX: 'auto', minWidth: 0 }}>
              <legend style={{ fontSize: 14, fontWeight: 500 }}>Permissions ({permissions.size} chosen)</legend>
              <table className="perm-grid">
                <thead>
                  <tr>
                    <th scope="col">
                      <span className="visually-hidden">Resource</span>
                    </th>
                    {ACTIONS.map((a) => (
                      <th key={a} scope="col">
                        {a}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {RESOURCES.map((r) => (
                    <tr key={r}>
                      <th scope="row">{r}</th>
                      {ACTIONS.map((a) => (
                        <td key={a}>
                          <Checkbox size="xs" aria-label={`${r}:${a}`} checked={permissions.has(`${r}:${a}`)} onChange={(e) => togglePermission(`${r}:${a}`, e.currentTarget.checked)} />
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </fieldset>
          )}

          <fieldset style={{ border: '1px solid var(--sg-border)', borderRadius: 6, padding: '8px 12px', minWidth: 0 }}>
            <legend style={{ fontSize: 14, fontWeight: 500 }}>Bindings: what the key may do, and where {needsBindings ? '(at least one)' : '(optional)'}</legend>
            <Stack gap="xs">
              {bindings.map((b, i) => (
                <Group key={i} gap="xs" align="flex-end" wrap={narrow ? 'wrap' : 'nowrap'}>
                  <NativeSelect
                    label={i === 0 ? 'Role' : undefined}
                    aria-label={`Role of binding ${i + 1}`}
                    value={mode === 'restricted' ? 'CUSTOM' : b.role}
                    disabled={mode === 'restricted'}
                    onChange={(e) => {
                      const role = e.currentTarget.value as BindingRole; // read now: the event is gone when the updater runs
                      setBindings((rows) => rows.map((r, j) => (j === i ? { ...r, role } : r)));
                    }}
                    data={roles.map((r) => ({ value: r, label: r === 'CUSTOM' ? 'Custom (the permissions above)' : r.charAt(0) + r.slice(1).toLowerCase() }))}
                    w={narrow ? '100%' : 200}
                  />
                  <NativeSelect
                    label={i === 0 ? 'Scope' : undefined}
                    aria-label={`Scope of binding ${i + 1}`}
                    value={b.scope}
                    onChange={(e) => {
                      const scope = e.currentTarget.value;
                      setBindings((rows) => rows.map((r, j) => (j === i ? { ...r, scope } : r)));
                    }}
                    data={scopes}
                    style={{ flex: 1, minWidth: 0 }}
                  />
                  <ActionIcon variant="subtle" color="gray" aria-label={`Remove binding ${i + 1}`} onClick={() => setBindings((rows) => rows.filter((_, j) => j !== i))} mb={4}>
                    <IconTrash size={14} />
                  </ActionIcon>
                </Group>
              ))}
              <Group>
                <Button
                  size="compact-sm"
                  variant="default"
                  leftSection={<IconPlus size={12} />}
                  onClick={() => setBindings((rows) => [...rows, { role: mode === 'restricted' ? 'CUSTOM' : 'VIEWER', scope: scopes[1]?.value ?? orgScope }])}
                  disabled={bindings.length >= 20}
                >
                  Add binding
                </Button>
              </Group>
            </Stack>
          </fieldset>

          {keyType === 'service' && (
            <Checkbox.Group
              label="Projects"
              description="Limit the key to these projects (you must be an administrator of each); none: the whole organization"
              value={projectIds}
              onChange={setProjectIds}
            >
              <Group gap="md" mt={6}>
                {session.projects.map((p) => (
                  <Checkbox key={p.id} value={p.id} label={p.name} />
                ))}
              </Group>
            </Checkbox.Group>
          )}

          <ApiErrorAlert error={create.error} title="The key was not created" shownAt={['name']} />
          <DialogActions onClose={onClose}>
            <Button
              type="submit"
              leftSection={<IconKey size={14} />}
              loading={create.isPending}
              disabled={!name.trim() || (needsBindings && bindings.length === 0) || (mode === 'restricted' && permissions.size === 0) || (expiry === 'date' && !expiryDate)}
            >
              Create key
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  );
}

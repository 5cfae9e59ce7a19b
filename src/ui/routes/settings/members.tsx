import { useState } from 'react';
import { Badge, Button, Group, NativeSelect, Stack, Table, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconLink, IconMailPlus, IconUserMinus, IconX } from '@tabler/icons-react';
import { can, useSession } from '../../api/session.ts';
import { useInvitations, useMemberMutations, useMembers } from '../../api/organization.ts';
import type { AddedMember, Member } from '../../api/organization.ts';
import type { Role } from '../../api/types.ts';
import { ApiErrorAlert, ConfirmAction, RoleNote, Section, ShownOnce, shortDate } from '../../components/Settings.tsx';
import { fieldError } from '../../lib/form-errors.ts';
import { Unloaded, Loading } from '../../components/QueryState.tsx';

const ROLES: { value: Role; label: string }[] = [
  { value: 'ADMIN', label: 'Admin (everything, settings too)' },
  { value: 'MEMBER', label: 'Member (works with the data)' },
  { value: 'VIEWER', label: 'Viewer (reads)' },
];
const roleName = (role: Role) => role.charAt(0) + role.slice(1).toLowerCase();

export default function MembersPage() {
  const { data: session } = useSession();
  const manage = can(session, 'organization:manage');
  const members = useMembers();
  const invitations = useInvitations(manage);
  const m = useMemberMutations();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('MEMBER');
  const [added, setAdded] = useState<AddedMember | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);

  const invite = async (e: React.FormEvent) => {
    e.preventDefault();
    const answer = await m.add.mutateAsync({ email: email.trim(), role, ...(name.trim() ? { name: name.trim() } : {}) });
    setAdded(answer);
    setEmail('');
    setName('');
  };

  const changeRole = async (member: Member, next: Role) => {
    try {
      await m.changeRole.mutateAsync({ userId: member.userId, role: next });
      notifications.show({ message: `${member.email} is now ${roleName(next).toLowerCase()}`, color: 'teal' });
    } catch (e) {
      notifications.show({ title: 'The role was not changed', message: e instanceof Error ? e.message : String(e), color: 'red' });
    }
  };

  return (
    <div className="settings-page">
      {manage ? (
        <Section title="Invite a member" description="A new user gets a one-time link to set a password (it is e-mailed when the server has SMTP). Someone who already has an account signs in with it.">
          <form onSubmit={(e) => void invite(e).catch(() => undefined)}>
            <Group align="flex-end" gap="sm">
              <TextInput label="E-mail" type="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} w={260} maw="100%" error={fieldError(m.add.error, 'email')} />
              <TextInput label="Name (optional)" value={name} onChange={(e) => setName(e.currentTarget.value)} w={180} />
              <NativeSelect label="Role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} data={ROLES} w={270} />
              <Button type="submit" leftSection={<IconMailPlus size={14} />} loading={m.add.isPending} disabled={!email.trim()}>
                Invite
              </Button>
            </Group>
          </form>
          <Stack mt="sm" gap="sm">
            <ApiErrorAlert error={m.add.error} title="Not invited" shownAt={['email']} />
            {added &&
              (added.invitation ? (
                <ShownOnce label={`Invitation link for ${added.email}`} value={added.invitation.url}>
                  Valid until {shortDate(added.invitation.expiresAt)}; send it to them.
                </ShownOnce>
              ) : (
                <Text size="sm" role="status">
                  {added.email} already has an account: they are a {roleName(added.role).toLowerCase()} now and sign in with it.
                </Text>
              ))}
          </Stack>
        </Section>
      ) : (
        <RoleNote>Your role ({session?.role.toLowerCase()}) can see the members; only administrators invite, change roles or remove.</RoleNote>
      )}

      <Section title="Members" description={`Everyone in ${session?.organization.name ?? 'the organization'} and their role.`}>
        {!members.isSuccess ? (
          <Unloaded query={members} failed="The members could not be loaded" loading="Loading members" inline />
        ) : (
          <div className="table-scroll">
            <Table className="settings-table" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>E-mail</Table.Th>
                  <Table.Th>Role</Table.Th>
                  <Table.Th>Member since</Table.Th>
                  {manage && (
                    <Table.Th>
                      <span className="visually-hidden">Actions</span>
                    </Table.Th>
                  )}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {members.data.map((member) => {
                  const self = member.userId === session?.user.id;
                  return (
                    <Table.Tr key={member.userId} data-member={member.email}>
                      <Table.Td>
                        {member.name ?? <span className="muted">–</span>}
                        {self && (
                          <Badge size="xs" variant="light" ml={6}>
                            you
                          </Badge>
                        )}
                      </Table.Td>
                      <Table.Td>{member.email}</Table.Td>
                      <Table.Td>
                        {manage ? (
                          <NativeSelect
                            aria-label={`Role of ${member.email}`}
                            size="xs"
                            w={120}
                            value={member.role}
                            onChange={(e) => void changeRole(member, e.currentTarget.value as Role)}
                            data={ROLES.map((r) => ({ value: r.value, label: roleName(r.value) }))}
                          />
                        ) : (
                          roleName(member.role)
                        )}
                      </Table.Td>
                      <Table.Td className="nowrap">{shortDate(member.createdAt)}</Table.Td>
                      {manage && (
                        <Table.Td>
                          <Group justify="flex-end">
                            <Button size="compact-sm" variant="subtle" color="red" leftSection={<IconUserMinus size={14} />} onClick={() => setRemoving(member)} aria-label={`Remove ${member.email}`}>
                              Remove
                            </Button>
                          </Group>
                        </Table.Td>
                      )}
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </Section>

      {manage && (
        <Section
          title="Pending invitations"
          description="Invited members who have not set a password yet. Only a hash of each link is kept, so a link is shown once; “New link” replaces it with a fresh one."
        >
          {invitations.isPending ? (
            <Loading label="Loading invitations" inline />
          ) : invitations.isError ? (
            <ApiErrorAlert error={invitations.error} />
          ) : invitations.data.length === 0 ? (
            <Text size="sm" className="muted">
              No pending invitation.
            </Text>
          ) : (
            <div className="table-scroll">
              <Table className="settings-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>E-mail</Table.Th>
                    <Table.Th>Role</Table.Th>
                    <Table.Th>Invited</Table.Th>
                    <Table.Th>Link valid until</Table.Th>
                    <Table.Th>
                      <span className="visually-hidden">Actions</span>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {invitations.data.map((inv) => (
                    <Table.Tr key={inv.id} data-invitation={inv.email}>
                      <Table.Td>{inv.email}</Table.Td>
                      <Table.Td>{roleName(inv.role)}</Table.Td>
                      <Table.Td className="nowrap">{shortDate(inv.createdAt)}</Table.Td>
                      <Table.Td className="nowrap">{shortDate(inv.expiresAt)}</Table.Td>
                      <Table.Td>
                        <Group gap={4} justify="flex-end" wrap="nowrap">
                          <Button
                            size="compact-sm"
                            variant="subtle"
                            leftSection={<IconLink size={14} />}
                            aria-label={`New link for ${inv.email}`}
                            loading={m.reissueInvitation.isPending && m.reissueInvitation.variables?.id === inv.id}
                            onClick={() =>
                              void m.reissueInvitation
                                .mutateAsync(inv)
                                .then(setAdded)
                                .catch((e: Error) => notifications.show({ title: 'No new link', message: e.message, color: 'red' }))
                            }
                          >
                            New link
                          </Button>
                          <Button
                            size="compact-sm"
                            variant="subtle"
                            color="red"
                            leftSection={<IconX size={14} />}
                            aria-label={`Revoke the invitation of ${inv.email}`}
                            onClick={() =>
                              void m.revokeInvitation
                                .mutateAsync(inv.id)
                                .then(() => notifications.show({ message: `Invitation of ${inv.email} revoked`, color: 'teal' }))
                                .catch((e: Error) => notifications.show({ title: 'Not revoked', message: e.message, color: 'red' }))
                            }
                          >
                            Revoke
                          </Button>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </div>
          )}
        </Section>
      )}

      <ConfirmAction
        target={removing}
        title={(member) => `Remove ${member.email}?`}
        confirmLabel="Remove member"
        pending={m.remove.isPending}
        error={m.remove.error}
        errorTitle="Not removed"
        onClose={() => setRemoving(null)}
        onConfirm={(member) => m.remove.mutateAsync(member.userId)}
      >
        They lose access to {session?.organization.name} at once; their personal API keys stop working.
      </ConfirmAction>
    </div>
  );
}

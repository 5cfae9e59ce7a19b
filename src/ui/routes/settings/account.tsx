import { useState } from 'react';
import { Alert, Badge, Button, Group, PasswordInput, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconLogout } from '@tabler/icons-react';
import { useSession } from '../../api/session.ts';
import { useAccountMutations, useUserSessions } from '../../api/account.ts';
import type { UserSession } from '../../api/account.ts';
import { ApiErrorAlert, Section, shortDate } from '../../components/Settings.tsx';
import { fieldError } from '../../lib/form-errors.ts';
import { Loading } from '../../components/QueryState.tsx';

/** "Chrome 131 on Linux" from a user agent, enough to tell one's devices apart. */
function device(userAgent: string | null): string {
  if (!userAgent) return 'Unknown device';
  const browser = /(Edg|Firefox|Chrome|Chromium|Safari|curl|HeadlessChrome)\/([\d]+)/.exec(userAgent);
  const os = /(Windows|Mac OS X|Android|iPhone|iPad|Linux|CrOS)/.exec(userAgent);
  if (!browser) return userAgent.slice(0, 60);
  const name = browser[1] === 'Edg' ? 'Edge' : browser[1];
  return `${name} ${browser[2]}${os ? ` on ${os[1].replace('Mac OS X', 'macOS')}` : ''}`;
}

export default function AccountPage() {
  const { data: session } = useSession();
  const sessions = useUserSessions();
  const m = useAccountMutations();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const mismatch = again.length > 0 && next !== again;
  const others = sessions.data?.filter((s) => !s.current) ?? [];

  const signOut = async (s: UserSession) => {
    try {
      await m.revokeSession.mutateAsync(s.id);
      notifications.show({ message: `Signed out ${device(s.userAgent)}`, color: 'teal' });
    } catch (e) {
      notifications.show({ title: 'Not signed out', message: e instanceof Error ? e.message : String(e), color: 'red' });
    }
  };
  const signOutOthers = async () => {
    for (const s of others) await m.revokeSession.mutateAsync(s.id).catch(() => undefined);
    notifications.show({ message: 'Signed out everywhere else', color: 'teal' });
  };

  const changePassword = async (e: React.FormEvent) => {
    e.preventDefault();
    if (next !== again) return;
    await m.changePassword.mutateAsync({ currentPassword: current, newPassword: next });
    setCurrent('');
    setNext('');
    setAgain('');
    notifications.show({ message: 'Password changed; your other sessions were signed out', color: 'teal' });
  };

  return (
    <div className="settings-page">
      <Section
        title="Your sessions"
        description={`Where ${session?.user.email ?? 'you'} is signed in, most recent first. Signing a session out ends it at once.`}
        actions={
          others.length > 0 && (
            <Button size="xs" variant="outline" color="red.9" leftSection={<IconLogout size={14} />} onClick={() => void signOutOthers()}>
              Sign out all other sessions
            </Button>
          )
        }
      >
        {sessions.isPending ? (
          <Loading label="Loading sessions" inline />
        ) : sessions.isError ? (
          <ApiErrorAlert error={sessions.error} />
        ) : (
          <div className="table-scroll">
            <Table className="settings-table" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Device</Table.Th>
                  <Table.Th>Address</Table.Th>
                  <Table.Th>Signed in</Table.Th>
                  <Table.Th>Last active</Table.Th>
                  <Table.Th>Ends</Table.Th>
                  <Table.Th>
                    <span className="visually-hidden">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {sessions.data.map((s) => (
                  <Table.Tr key={s.id} data-session-id={s.id}>
                    <Table.Td title={s.userAgent ?? undefined}>
                      {device(s.userAgent)}
                      {s.current && (
                        <Badge size="xs" variant="light" color="teal" ml={6}>
                          this session
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td className="mono" fz="xs">
                      {s.ipAddress ?? '–'}
                    </Table.Td>
                    <Table.Td className="nowrap">{shortDate(s.createdAt)}</Table.Td>
                    <Table.Td className="nowrap">{shortDate(s.lastSeenAt)}</Table.Td>
                    <Table.Td className="nowrap">{shortDate(s.expiresAt)}</Table.Td>
                    <Table.Td>
                      {!s.current && (
                        <Group justify="flex-end">
                          <Button size="compact-sm" variant="subtle" color="red" onClick={() => void signOut(s)} aria-label={`Sign out ${device(s.userAgent)} signed in ${shortDate(s.createdAt)}`}>
                            Sign out
                          </Button>
                        </Group>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </Section>

      <Section title="Password" description="At least 8 characters. Changing it signs out your other sessions.">
        <form onSubmit={(e) => void changePassword(e).catch(() => undefined)} noValidate>
          <Stack gap="sm" maw={360}>
            <PasswordInput label="Current password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.currentTarget.value)} error={fieldError(m.changePassword.error, 'currentPassword')} />
            <PasswordInput label="New password" autoComplete="new-password" required value={next} onChange={(e) => setNext(e.currentTarget.value)} error={next.length > 0 && next.length < 8 ? 'At least 8 characters' : undefined} />
            <PasswordInput label="New password again" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.currentTarget.value)} error={mismatch ? 'The two passwords differ' : undefined} />
            <ApiErrorAlert error={m.changePassword.error} title="The password was not changed" shownAt={['currentPassword']} />
            <Group>
              <Button type="submit" loading={m.changePassword.isPending} disabled={!current || next.length < 8 || next !== again}>
                Change password
              </Button>
            </Group>
          </Stack>
        </form>
      </Section>
      {session && (
        <Alert color="gray" variant="light">
          <Text size="sm">
            Signed in as {session.user.email} in {session.organization.name} with the role {session.role.toLowerCase()}.
          </Text>
        </Alert>
      )}
    </div>
  );
}

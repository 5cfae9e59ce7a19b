import { useState } from 'react';
import { Button, Group, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { can, useSession } from '../../api/session.ts';
import { useOrganization, useRenameOrganization } from '../../api/organization.ts';
import { ApiErrorAlert, RoleNote, Section, shortDate } from '../../components/Settings.tsx';
import { Unloaded } from '../../components/QueryState.tsx';

export default function OrganizationPage() {
  const { data: session } = useSession();
  const organization = useOrganization();
  const rename = useRenameOrganization();
  const [name, setName] = useState('');
  // The field follows the organization as loaded (and as renamed): adjusted while rendering,
  // as React recommends for state that follows a prop.
  const [shown, setShown] = useState<typeof organization.data>(undefined);
  if (organization.data !== shown) {
    setShown(organization.data);
    if (organization.data) setName(organization.data.name);
  }
  const mayRename = can(session, 'organization:update');

  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    await rename.mutateAsync(name.trim());
    notifications.show({ message: 'Organization renamed', color: 'teal' });
  };

  return (
    <div className="settings-page">
      <Section title="Organization" description="Its name shows in the header, in invitations and in e-mails.">
        {!organization.isSuccess ? (
          <Unloaded query={organization} failed="The organization could not be loaded" loading="Loading the organization" inline />
        ) : (
          <>
            <form onSubmit={(e) => void save(e).catch(() => undefined)}>
              <Group align="flex-end" gap="sm">
                <TextInput label="Organization name" required value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={100} w={320} readOnly={!mayRename} />
                {mayRename && (
                  <Button type="submit" loading={rename.isPending} disabled={!name.trim() || name.trim() === organization.data.name}>
                    Rename
                  </Button>
                )}
              </Group>
            </form>
            <Text size="xs" className="muted" mt="xs">
              Id <span className="mono">{organization.data.id}</span> · created {shortDate(organization.data.createdAt)}
            </Text>
            {!mayRename && (
              <div style={{ marginTop: 12 }}>
                <RoleNote>Only administrators rename the organization.</RoleNote>
              </div>
            )}
            <ApiErrorAlert error={rename.error} title="Not renamed" />
          </>
        )}
      </Section>
    </div>
  );
}

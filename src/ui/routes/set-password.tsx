import { useState } from 'react';
import { Alert, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { ApiError } from '../api/client.ts';
import { acceptLink, lastProject, useAcceptSession, useLink, type LinkKind } from '../api/session.ts';
import type { InvitationInfo } from '../api/session.ts';
import { AuthCard } from '../components/AuthCard.tsx';
import { formatFullTime } from '../lib/format.ts';

export function InvitePage() {
  const { token } = useParams({ from: '/invite/$token' });
  return <SetPassword kind="invite" token={token} />;
}

export function ResetPage() {
  const { token } = useParams({ from: '/reset-password/$token' });
  return <SetPassword kind="reset" token={token} />;
}

/** An invitation or a reset link: show whose it is, take a new password, sign in. */
function SetPassword({ kind, token }: { kind: LinkKind; token: string }) {
  const navigate = useNavigate();
  const accept = useAcceptSession();
  const [error, setError] = useState<string | null>(null);
  const link = useLink(kind, token);
  const form = useForm({
    initialValues: { name: '', password: '', confirm: '' },
    validate: {
      password: (v) => (v.length >= 8 ? null : 'At least 8 characters'),
      confirm: (v, values) => (v === values.password ? null : 'The passwords differ'),
    },
  });

  if (link.isPending) return <AuthCard title={kind === 'invite' ? 'Join Spyglass' : 'Choose a new password'}>Loading…</AuthCard>;
  if (link.isError) {
    return (
      <AuthCard title="This link does not work">
        <Text size="sm">
          {link.error instanceof ApiError && link.error.status === 404
            ? 'It is unknown, was already used, or has expired. Ask an administrator for a new one.'
            : link.error.message}
        </Text>
        <Link to="/signin">Go to sign-in</Link>
      </AuthCard>
    );
  }
  const info = link.data;
  const invitation = kind === 'invite' ? (info as InvitationInfo) : null;

  const submit = form.onSubmit(async (values) => {
    setError(null);
    try {
      const body = invitation ? { password: values.password, ...(values.name.trim() ? { name: values.name.trim() } : {}) } : { password: values.password };
      const session = await acceptLink(kind, token, body);
      accept(session);
      const projectId = lastProject(session);
      await navigate(projectId ? { to: '/p/$projectId/traces', params: { projectId } } : { to: '/' });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  });

  return (
    <AuthCard
      title={invitation ? `Join ${invitation.organizationName}` : 'Choose a new password'}
      subtitle={
        <>
          {invitation ? `You are invited as ${invitation.role.toLowerCase()}` : 'For'} <b>{info.email}</b>. The link works until {formatFullTime(info.expiresAt)}.
        </>
      }
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {error && (
            <Alert color="red" variant="light" role="alert">
              {error}
            </Alert>
          )}
          <input type="email" name="username" autoComplete="username" value={info.email} readOnly hidden />
          {invitation && <TextInput label="Your name" autoComplete="name" {...form.getInputProps('name')} />}
          <PasswordInput label="New password" description="At least 8 characters" autoComplete="new-password" required {...form.getInputProps('password')} />
          <PasswordInput label="Repeat the password" autoComplete="new-password" required {...form.getInputProps('confirm')} />
          <Button type="submit" loading={form.submitting} fullWidth mt="xs">
            {invitation ? 'Set password and sign in' : 'Save password and sign in'}
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}

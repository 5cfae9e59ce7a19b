import { useState } from 'react';
import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { ApiError } from '../api/client.ts';
import { lastProject, signIn, useAcceptSession } from '../api/session.ts';
import { AuthCard } from '../components/AuthCard.tsx';

/** Only paths of this app: a redirect never leaves the site (no `//host` nor `/\\host`, which browsers read as a host). */
export const safeRedirect = (to: string | undefined) => (to && /^\/(?![/\\])/.test(to) ? to : null);

export default function SignInPage() {
  const search = useSearch({ from: '/signin' });
  const navigate = useNavigate();
  const accept = useAcceptSession();
  const [error, setError] = useState<string | null>(null);
  const form = useForm({
    initialValues: { email: '', password: '' },
    validate: {
      email: (v) => (/^\S+@\S+$/.test(v) ? null : 'Enter your e-mail address'),
      password: (v) => (v ? null : 'Enter your password'),
    },
  });

  const submit = form.onSubmit(async (values) => {
    setError(null);
    try {
      const session = await signIn(values);
      accept(session);
      const target = safeRedirect(search.redirect);
      if (target) await navigate({ href: target });
      else {
        const projectId = lastProject(session);
        await navigate(projectId ? { to: '/p/$projectId/traces', params: { projectId } } : { to: '/' });
      }
    } catch (e) {
      if (e instanceof ApiError && e.status === 429) setError('Too many attempts. Wait a minute and try again.');
      else if (e instanceof ApiError && e.status === 401) setError('The e-mail or the password is wrong.');
      else setError(e instanceof Error ? e.message : String(e));
    }
  });

  return (
    <AuthCard title="Sign in" subtitle="Use the e-mail and password of your Spyglass account.">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {error && (
            <Alert color="red" variant="light" role="alert">
              {error}
            </Alert>
          )}
          <TextInput label="E-mail" type="email" autoComplete="username" autoFocus required {...form.getInputProps('email')} />
          <PasswordInput label="Password" autoComplete="current-password" required {...form.getInputProps('password')} />
          <Button type="submit" loading={form.submitting} fullWidth mt="xs">
            Sign in
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}

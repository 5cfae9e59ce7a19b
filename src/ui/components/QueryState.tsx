import type { ReactNode } from 'react';
import { Alert, Group, Loader, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { ApiErrorAlert } from './Settings.tsx';

/** What a page says when there is nothing yet: a title and what to do next (or a quiet line without a title). */
export interface NothingYet {
  title?: string;
  children: ReactNode;
}

/** Still loading: a small spinner named for what it waits for ("Loading prompts"). */
export function Loading({ label, size = 'sm', inline = false, padding = 'xl' }: { label: string; size?: 'xs' | 'sm'; inline?: boolean; padding?: 'xs' | 'md' | 'xl' }) {
  const spinner = <Loader size={size} aria-label={label} />;
  return inline ? (
    spinner
  ) : (
    <Group justify="center" p={padding}>
      {spinner}
    </Group>
  );
}

/** Could not be loaded: the title names what, the body is the error's message (role=alert; a 403 says what the role may not do). */
export function Failed({ title, error }: { title: string; error: unknown }) {
  return <ApiErrorAlert error={error} title={title} />;
}

/** Nothing yet: with a title a grey note, without one a muted line. */
export function Nothing({ title, children }: NothingYet) {
  return title === undefined ? (
    <Text size="sm" className="muted">
      {children}
    </Text>
  ) : (
    <Alert color="gray" title={title}>
      {children}
    </Alert>
  );
}

/** A query not (yet) answered: still loading, or could not be loaded. */
export function Unloaded({ query, what, loading, failed, size, inline }: { query: UseQueryResult; what?: string; loading?: string; failed?: string; size?: 'xs' | 'sm'; inline?: boolean }) {
  return query.isError ? (
    <Failed title={failed ?? `The ${what ?? 'data'} could not be loaded`} error={query.error} />
  ) : (
    <Loading label={loading ?? `Loading ${what ?? ''}`.trim()} size={size} inline={inline} />
  );
}

/**
 * A query's answer before its content, the same on every page: loading, could not be loaded,
 * nothing yet; otherwise `children` with the data. `what` words the first two ("Loading
 * prompts", "The prompts could not be loaded"); `loading` and `failed` replace either word for word.
 */
export function QueryState<T>({
  query,
  what,
  loading,
  failed,
  empty,
  size,
  inline,
  children,
}: {
  query: UseQueryResult<T>;
  what?: string;
  loading?: string;
  failed?: string;
  /** the page's "nothing yet" for this answer, or nothing when there is something to show */
  empty?: (data: T) => NothingYet | false | null | undefined;
  size?: 'xs' | 'sm';
  /** the spinner alone, not centred in a padded row (inside a settings section or a line) */
  inline?: boolean;
  children: (data: T) => ReactNode;
}) {
  if (!query.isSuccess) return <Unloaded query={query} what={what} loading={loading} failed={failed} size={size} inline={inline} />;
  const nothing = empty?.(query.data);
  if (nothing) return <Nothing title={nothing.title}>{nothing.children}</Nothing>;
  return <>{children(query.data)}</>;
}

import { useEffect, useState } from 'react';
import { ListPager } from '../components/ListPager.tsx';
import { TimeCell } from '../components/TimeCell.tsx';
import { Group, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch, IconThumbDown, IconThumbUp } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { sortHeaders } from '../components/SortHeader.tsx';
import { useEndUsers } from '../api/analytics.ts';
import type { UsersSearch } from '../lib/page-searches.ts';
import { formatCost, formatTokens } from '../lib/format.ts';
import { QueryState } from '../components/QueryState.tsx';

const PAGE_SIZE = 50;
type Sort = NonNullable<UsersSearch['sort']>;

/** The application's end users: who uses it, how much, what it costs, how it goes for them. */
export default function UsersPage() {
  const { projectId } = useParams({ from: '/p/$projectId/users' });
  const search = useSearch({ from: '/p/$projectId/users' });
  const navigate = useNavigate({ from: '/p/$projectId/users' });
  const sort: Sort = search.sort ?? 'last_seen';
  const dir = search.dir ?? (sort === 'user_id' ? 'asc' : 'desc');
  const page = search.page ?? 1;
  const [text, setText] = useState(search.q ?? '');
  const [debounced] = useDebouncedValue(text.trim(), 250);
  useEffect(() => {
    if (debounced !== (search.q ?? '')) void navigate({ search: { ...search, q: debounced || undefined, page: undefined }, replace: true });
  }, [debounced, search, navigate]);

  const users = useEndUsers(projectId, { search: search.q, sortBy: sort, sortDirection: dir, page, pageSize: PAGE_SIZE });
  const total = users.data?.pagination.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));

  const header = sortHeaders<Sort>(sort, dir, 'user_id', (column, next) => void navigate({ search: { ...search, sort: column, dir: next, page: undefined }, replace: true }));

  return (
    <div className="page">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={1} size="h3">
          Users
        </Title>
        <TextInput
          size="sm"
          aria-label="Find a user by id"
          placeholder="Find a user by id"
          leftSection={<IconSearch size={14} aria-hidden />}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          style={{ flex: '1 1 220px', maxWidth: 340 }}
        />
      </Group>
      <Text size="sm" className="muted">
        The people using your application, by the user id your traces carry (metadata <span className="mono">user_id</span>). Open one to see their traces.
      </Text>
      <QueryState
        query={users}
        failed="The users could not be loaded"
        loading="Loading users"
        empty={(answer) =>
          answer.users.length === 0 && {
            title: search.q ? 'No user matches' : 'No users yet',
            children: (
            <>
              {search.q ? 'No user id contains that text.' : 'Traces with a user id (metadata user_id, or the langwatch.user.id attribute) show their users here.'}
            </>
          ),
          }
        }
      >
        {(answer) => (
          <>
            <div className="panel">
              <Table striped highlightOnHover verticalSpacing={6} aria-label="Users" aria-rowcount={total + 1} data-testid="users-table" style={{ opacity: users.isPlaceholderData ? 0.6 : 1 }}>
                <Table.Thead>
                  <Table.Tr>
                    {header('user_id', 'User')}
                    {header('traces', 'Traces', true)}
                    {header('cost', 'Cost', true)}
                    {header('tokens', 'Tokens', true)}
                    {header('errors', 'Errors', true)}
                    {header('thumbs_up', 'Thumbs up', true)}
                    {header('thumbs_down', 'Thumbs down', true)}
                    {header('first_seen', 'First seen')}
                    {header('last_seen', 'Last seen')}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {answer.users.map((u) => (
                    <Table.Tr key={u.user_id} data-user-id={u.user_id}>
                      <Table.Td className="ellipsis" style={{ maxWidth: 260 }}>
                        <Link to="/p/$projectId/traces" params={{ projectId }} search={{ user: u.user_id }} title={`Traces of ${u.user_id}`}>
                          {u.user_id}
                        </Link>
                      </Table.Td>
                      <Table.Td className="num">{u.traces.toLocaleString()}</Table.Td>
                      <Table.Td className="num">{formatCost(u.cost)}</Table.Td>
                      <Table.Td className="num" title={`${u.tokens.prompt.toLocaleString()} prompt + ${u.tokens.completion.toLocaleString()} completion`}>
                        {formatTokens(u.tokens.prompt + u.tokens.completion)}
                      </Table.Td>
                      <Table.Td className="num" style={{ color: u.errors ? '#c92a2a' : undefined }}>
                        {u.errors.toLocaleString()}
                      </Table.Td>
                      <Table.Td className="num">
                        {u.thumbs_up > 0 ? (
                          <span style={{ color: '#2b8a3e' }}>
                            <IconThumbUp size={13} aria-hidden style={{ verticalAlign: -2 }} /> {u.thumbs_up}
                          </span>
                        ) : (
                          '0'
                        )}
                      </Table.Td>
                      <Table.Td className="num">
                        {u.thumbs_down > 0 ? (
                          <span style={{ color: '#c92a2a' }}>
                            <IconThumbDown size={13} aria-hidden style={{ verticalAlign: -2 }} /> {u.thumbs_down}
                          </span>
                        ) : (
                          '0'
                        )}
                      </Table.Td>
                      <TimeCell at={u.first_seen} />
                      <TimeCell at={u.last_seen} />
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </div>
            <ListPager total={total} noun="user" page={page} pages={pages} testId="users-count" go={(p) => void navigate({ search: { ...search, page: p > 1 ? p : undefined }, replace: true })} />
          </>
        )}
      </QueryState>
    </div>
  );
}

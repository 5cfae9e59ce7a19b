import { Button, Group, Text } from '@mantine/core';

/**
 * Under a paged list: how many there are ("12 threads · page 1 of 2", announced when it
 * changes) and Previous / Next. `go(page)` moves; page 1 is the list's URL without a page.
 */
export function ListPager({ total, noun, page, pages, testId, go }: { total: number; noun: string; page: number; pages: number; testId: string; go: (page: number) => void }) {
  return (
    <Group justify="space-between" gap="xs">
      <Text size="sm" className="muted" aria-live="polite" data-testid={testId}>
        {total.toLocaleString()} {noun}
        {total === 1 ? '' : 's'} · page {page} of {pages}
      </Text>
      <Group gap="xs">
        <Button size="xs" variant="default" disabled={page <= 1} onClick={() => go(page - 1)}>
          Previous
        </Button>
        <Button size="xs" variant="default" disabled={page >= pages} onClick={() => go(page + 1)}>
          Next
        </Button>
      </Group>
    </Group>
  );
}

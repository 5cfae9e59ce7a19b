import { useState } from 'react';
import { Button, Modal, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useTracePicker } from '../api/traces.ts';
import { formatTime, oneLine } from '../lib/format.ts';
import { Loading } from './QueryState.tsx';

/** "Fill from a trace": the project's traces (newest first, searchable); choosing one hands back its id. */
export function TracePicker({ projectId, onPick }: { projectId: string; onPick: (traceId: string) => void }) {
  const [opened, setOpened] = useState(false);
  const [query, setQuery] = useState('');
  const [debounced] = useDebouncedValue(query, 250);
  const traces = useTracePicker(projectId, debounced, opened);
  return (
    <>
      <Button size="compact-xs" variant="light" onClick={() => setOpened(true)}>
        Fill from a trace
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title="Choose a trace" size="lg">
        <Stack gap="xs">
          <TextInput aria-label="Search traces" placeholder="Search input and output" leftSection={<IconSearch size={14} aria-hidden />} value={query} onChange={(e) => setQuery(e.currentTarget.value)} data-autofocus />
          {traces.isPending ? (
            <Loading label="Loading traces" inline />
          ) : traces.data?.traces.length === 0 ? (
            <Text size="sm" className="muted">
              No trace matches.
            </Text>
          ) : (
            <Stack gap={2} role="list" aria-label="Traces">
              {traces.data?.traces.map((t) => (
                <div role="listitem" key={t.trace_id}>
                <UnstyledButton
                  className="picker-row"
                  onClick={() => {
                    onPick(t.trace_id);
                    setOpened(false);
                  }}
                  data-trace-id={t.trace_id}
                >
                  <Text size="xs" className="muted nowrap">
                    {formatTime(t.timestamps.started_at)}
                  </Text>
                  <Text size="sm" className="ellipsis">
                    {oneLine(t.input.value, 160) || t.trace_id}
                  </Text>
                </UnstyledButton>
                </div>
              ))}
            </Stack>
          )}
        </Stack>
      </Modal>
    </>
  );
}

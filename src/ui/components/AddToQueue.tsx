import { useState } from 'react';
import { Alert, Button, Modal, NativeSelect, Radio, Stack, Text } from '@mantine/core';
import { IconListCheck } from '@tabler/icons-react';
import { Link } from '@tanstack/react-router';
import { useQueueMutations, useQueues } from '../api/review.ts';
import { can, useSession } from '../api/session.ts';
import type { AddSource } from './AddToDataset.tsx';
import { formErrors } from '../lib/form-errors.ts';
import { DialogActions } from './DialogActions.tsx';

/** What goes to a queue: as "Add to dataset" takes, or the traces of an experiment run's rows. */
export type QueueSource = AddSource | { kind: 'run'; experimentSlug: string; runId: string; label: string } | { kind: 'threads'; threadIds: string[]; label: string };

/** "Add to queue" beside "Add to dataset": the ticked traces, or every trace matching the search; on a run's page, its rows' traces. */
export function AddToQueueButton({ projectId, source, size = 'xs' }: { projectId: string; source: QueueSource; size?: 'xs' | 'sm' | 'compact-sm' }) {
  const [open, setOpen] = useState(false);
  const { data: session } = useSession();
  const allowed = can(session, 'reviewQueues:create');
  return (
    <>
      <Button size={size} variant="default" leftSection={<IconListCheck size={14} />} onClick={() => setOpen(true)} disabled={!allowed} title={allowed ? undefined : 'Your role cannot add to review queues'}>
        Add to queue
      </Button>
      {open && <AddToQueueDialog projectId={projectId} source={source} onClose={() => setOpen(false)} />}
    </>
  );
}

function AddToQueueDialog({ projectId, source, onClose }: { projectId: string; source: QueueSource; onClose: () => void }) {
  const queues = useQueues(projectId);
  const { addItems } = useQueueMutations(projectId);
  const [picked, setPicked] = useState<string | null>(null);
  const queueId = picked ?? queues.data?.[0]?.id ?? null;
  const [which, setWhich] = useState<'selected' | 'matching'>(source.kind === 'choice' && source.selected.length === 0 ? 'matching' : 'selected');
  const [result, setResult] = useState<string | null>(null);
  const submit = async () => {
    if (!queueId) return;
    const body =
      source.kind === 'items'
        ? { items: source.items }
        : source.kind === 'threads'
          ? { threads: source.threadIds }
          : source.kind === 'run'
          ? { experimentRun: { experimentSlug: source.experimentSlug, runId: source.runId } }
          : which === 'selected'
          ? { items: source.selected.map((traceId) => ({ traceId })) }
          : { filter: source.filter ?? {}, limit: Math.min(Math.max(source.matching, 1), 5000) };
    const r = await addItems.mutateAsync({ id: queueId, body });
    setResult(`${r.added} added${r.alreadyQueued ? `, ${r.alreadyQueued} already in the queue` : ''}.`);
  };
  // The queue (named by the address: one deleted meanwhile) at its picker; what is sent at the traces chosen.
  const errors = formErrors(addItems.error, ['id', 'traces'], { items: 'traces', filter: 'traces', limit: 'traces', experimentRun: 'traces', threads: 'traces' });
  return (
    <Modal opened onClose={onClose} title="Add to a review queue">
      <Stack gap="sm">
        {queues.data && queues.data.length === 0 ? (
          <Alert color="gray">
            No queues yet.{' '}
            <Link to="/p/$projectId/queues" params={{ projectId }}>
              Create one
            </Link>{' '}
            first.
          </Alert>
        ) : (
          <NativeSelect
            label="Queue"
            value={queueId ?? ''}
            onChange={(e) => setPicked(e.currentTarget.value)}
            data={(queues.data ?? []).map((q) => ({ value: q.id, label: q.name }))}
            error={errors.at('id')}
          />
        )}
        {source.kind !== 'choice' ? (
          <div>
            <Text size="sm">{source.label}</Text>
            {errors.at('traces') && (
              <Text size="xs" c="red.9" role="alert">
                {errors.at('traces')}
              </Text>
            )}
          </div>
        ) : (
          <Radio.Group value={which} onChange={(v) => setWhich(v === 'matching' ? 'matching' : 'selected')} label="Which traces" error={errors.at('traces')}>
            <Stack gap={4} mt={4}>
              <Radio value="selected" label={`The ${source.selected.length} ticked`} disabled={source.selected.length === 0} />
              <Radio value="matching" label={`Every trace matching the search (${Math.min(source.matching, 5000).toLocaleString()}${source.matching > 5000 ? ', the newest' : ''})`} />
            </Stack>
          </Radio.Group>
        )}
        {errors.elsewhere && <Alert color="red">{errors.elsewhere}</Alert>}
        {result && (
          <Alert color="teal" role="status">
            {result}
          </Alert>
        )}
        <DialogActions onClose={onClose} closeLabel={result ? 'Close' : 'Cancel'}>
          <Button onClick={() => void submit().catch(() => undefined)} loading={addItems.isPending} disabled={!queueId}>
            Add
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
}

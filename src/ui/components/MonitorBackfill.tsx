import { useState } from 'react';
import { Alert, Badge, Button, Group, Modal, NativeSelect, Progress, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconHistory } from '@tabler/icons-react';
import { useBackfillMutations, useEvaluatorName, useBackfillPreview, useMonitorBackfills, type BackfillRequest, type MonitorBackfill } from '../api/evaluators.ts';
import type { Monitor } from '../api/evaluators.ts';
import { formatCost, formatFullTime, localInputValue } from '../lib/format.ts';
import { formErrors } from '../lib/form-errors.ts';
import { Loading } from './QueryState.tsx';
import { DialogActions } from './DialogActions.tsx';

const DAY = 86_400_000;
const RANGES = [
  { value: String(DAY), label: 'Last 24 hours' },
  { value: String(7 * DAY), label: 'Last 7 days' },
  { value: String(30 * DAY), label: 'Last 30 days' },
  { value: String(90 * DAY), label: 'Last 90 days' },
  { value: String(365 * DAY), label: 'Last 365 days' },
  { value: 'custom', label: 'Custom range…' },
];

/** The request for a custom range, or why there is none yet. */
function customRange(from: string, to: string): BackfillRequest | string {
  const startDate = Date.parse(from);
  if (!from || Number.isNaN(startDate)) return 'Choose when the range starts.';
  if (!to) return { startDate };
  const endDate = Date.parse(to);
  if (Number.isNaN(endDate)) return 'Choose when the range ends, or leave it empty for now.';
  if (endDate < startDate) return 'The range ends before it starts.';
  return { startDate, endDate };
}

const active = (b: MonitorBackfill | undefined) => !!b && (b.state === 'queued' || b.state === 'running');

/** "Run over past traces": a time range, the count and estimated cost before starting, then the run's progress. */
export function MonitorBackfillButton({ projectId, monitor, allowed }: { projectId: string; monitor: Monitor; allowed: boolean }) {
  const [opened, setOpened] = useState(false);
  const backfills = useMonitorBackfills(projectId, monitor.id);
  const latest = backfills.data?.[0];
  return (
    <>
      <Button size="xs" variant="default" leftSection={<IconHistory size={14} />} onClick={() => setOpened(true)}>
        {active(latest) ? `Past traces: ${percent(latest!)}%` : 'Run over past traces'}
      </Button>
      {opened && <BackfillDialog projectId={projectId} monitor={monitor} allowed={allowed} latest={latest} onClose={() => setOpened(false)} />}
    </>
  );
}

function percent(b: MonitorBackfill) {
  return b.total ? Math.floor((b.done / b.total) * 100) : 0;
}

function BackfillDialog({ projectId, monitor, allowed, latest, onClose }: { projectId: string; monitor: Monitor; allowed: boolean; latest: MonitorBackfill | undefined; onClose: () => void }) {
  const [range, setRange] = useState(RANGES[1].value);
  // Fixed when the range is chosen, so the preview is asked once per choice.
  const [startDate, setStartDate] = useState(() => Date.now() - Number(RANGES[1].value));
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const custom = range === 'custom' ? customRange(from, to) : null;
  const request: BackfillRequest | null = custom === null ? { startDate } : typeof custom === 'string' ? null : custom;
  const running = active(latest);
  const preview = useBackfillPreview(projectId, monitor.id, running ? null : request);
  const evaluatorName = useEvaluatorName(projectId);
  const { start, cancel } = useBackfillMutations(projectId, monitor.id);
  const p = preview.data;
  const cost = p?.estimated_cost;
  // The count's and the start's refusals: the range's ends at their inputs (the start at the range picker when it is a preset).
  const fields = range === 'custom' ? ['startDate', 'endDate'] : ['range'];
  const shownAt: Record<string, string> = range === 'custom' ? {} : { startDate: 'range', endDate: 'range' };
  const previewErrors = formErrors(preview.error, fields, shownAt);
  const startErrors = formErrors(start.error, fields, shownAt);
  const errorAt = (field: string) => previewErrors.at(field) ?? startErrors.at(field);

  return (
    <Modal opened onClose={onClose} title="Run over past traces" size="lg">
      <Stack gap="sm">
        <Text size="sm">
          Evaluates the traces already stored that match this monitor&apos;s filters, in its sample, with {evaluatorName(monitor.evaluator)}. Results are stored as the monitor&apos;s own; a trace it already
          evaluated (at this evaluator version) is skipped.
        </Text>
        {latest && <Run backfill={latest} onCancel={allowed && running ? () => cancel.mutate(latest.id) : undefined} cancelling={cancel.isPending} />}
        {!running && (
          <>
            <NativeSelect
              label="Traces started in"
              data={RANGES}
              value={range}
              error={errorAt('range')}
              onChange={(e) => {
                const value = e.currentTarget.value;
                setRange(value);
                if (value === 'custom') {
                  // Starts from the range shown until now, which the user then narrows.
                  if (!from) setFrom(localInputValue(startDate));
                } else setStartDate(Date.now() - Number(value));
              }}
            />
            {range === 'custom' && (
              <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
                <TextInput type="datetime-local" size="sm" label="From" value={from} onChange={(e) => setFrom(e.currentTarget.value)} error={errorAt('startDate')} />
                <TextInput type="datetime-local" size="sm" label="To (empty: now)" value={to} onChange={(e) => setTo(e.currentTarget.value)} error={errorAt('endDate')} />
              </SimpleGrid>
            )}
            {typeof custom === 'string' && (
              <Text size="xs" c="red.9" role="alert">
                {custom}
              </Text>
            )}
            {request && preview.isPending && <Loading label="Counting the matching traces" inline />}
            {previewErrors.elsewhere && <Alert color="red">{previewErrors.elsewhere}</Alert>}
            {p && cost && (
              <div className="result-grid" aria-label="Before starting">
                <div>
                  <Text size="xs" className="muted">
                    Traces
                  </Text>
                  <Text fw={600} data-testid="backfill-count">
                    {p.count.toLocaleString()}
                    {p.capped ? ' (capped)' : ''}
                  </Text>
                </div>
                <div>
                  <Text size="xs" className="muted">
                    Estimated cost
                  </Text>
                  <Text fw={600} data-testid="backfill-cost">
                    {cost.amount === null ? 'unknown' : formatCost(cost.amount)}
                  </Text>
                </div>
              </div>
            )}
            {p?.capped && (
              <Text size="xs">
                More traces match: only the newest {p.limit.toLocaleString()} would be evaluated.
              </Text>
            )}
            {cost && (
              <Text size="xs" className="muted">
                {cost.method}
              </Text>
            )}
            {startErrors.elsewhere && <Alert color="red">{startErrors.elsewhere}</Alert>}
            <DialogActions onClose={onClose} closeLabel="Close">
              <Button onClick={() => request && start.mutate(request)} loading={start.isPending} disabled={!allowed || !request || !p || p.count === 0}>
                Start
              </Button>
            </DialogActions>
            {!allowed && (
              <Text size="xs" className="muted">
                Your role cannot start a run.
              </Text>
            )}
          </>
        )}
      </Stack>
    </Modal>
  );
}

function Run({ backfill: b, onCancel, cancelling }: { backfill: MonitorBackfill; onCancel?: () => void; cancelling: boolean }) {
  return (
    <Stack gap={6} aria-label="The run over past traces" data-testid="backfill-run">
      <Group justify="space-between">
        <Group gap="xs">
          <Text size="sm" fw={600}>
            Run of {formatFullTime(b.created_at)}
          </Text>
          <Badge size="sm" variant="filled" color={b.state === 'failed' ? 'red.9' : b.state === 'completed' ? 'teal.9' : 'gray.7'} tt="none">
            {b.state}
          </Badge>
        </Group>
        {onCancel && (
          <Button size="compact-xs" variant="default" color="red" onClick={onCancel} loading={cancelling}>
            Cancel
          </Button>
        )}
      </Group>
      <Progress value={b.total ? (b.done / b.total) * 100 : b.state === 'completed' ? 100 : 0} aria-label="Progress" animated={active(b)} />
      <Text size="xs">
        {b.done.toLocaleString()} of {b.total.toLocaleString()} traces · {b.evaluated} evaluated · {b.skipped} skipped · {b.failed} failed
      </Text>
      {b.error && (
        <Text size="xs" c="red.9">
          {b.error}
        </Text>
      )}
    </Stack>
  );
}

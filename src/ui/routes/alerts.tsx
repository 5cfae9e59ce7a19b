import { useState } from 'react';
import { TimeCell } from '../components/TimeCell.tsx';
import { Alert, Button, Group, Menu, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { Link, useParams } from '@tanstack/react-router';
import { METRICS, useChannelDeliveries, useChannelMutations, useChannels, useRuleHistory, useRuleMutations, useRules, type AlertChannel, type AlertRule } from '../api/alerts.ts';
import { can, useSession } from '../api/session.ts';
import { RuleState, windowValues } from '../components/AlertParts.tsx';
import { ButtonLink } from '../components/ButtonLink.tsx';
import { RuleJudgeTrust } from '../components/JudgeTrust.tsx';
import { Sparkline } from '../components/Sparkline.tsx';
import { fieldError } from '../lib/form-errors.ts';
import { QueryState } from '../components/QueryState.tsx';

const HOUR = 3_600_000;

/** The project's alert rules with their state, and where alerts go (channels, each with its delivery log). */
export default function AlertsPage() {
  const { projectId } = useParams({ from: '/p/$projectId/alerts' });
  const rules = useRules(projectId);
  const { data: session } = useSession();
  const allowed = can(session, 'alerts:manage');
  const [now] = useState(() => Date.now());
  return (
    <div className="page">
      <Group justify="space-between">
        <Title order={1} size="h3">
          Alerts
        </Title>
        {allowed && (
          <ButtonLink to="/p/$projectId/alerts/new" params={{ projectId }} size="sm" leftSection={<IconPlus size={14} />}>
            New rule
          </ButtonLink>
        )}
      </Group>
      <QueryState
        query={rules}
        failed="The rules could not be loaded"
        loading="Loading rules"
        empty={(list) =>
          list.length === 0 && {
            title: 'No alert rules yet',
            children: (
            <>
              A rule watches a metric of your traces window by window (error rate, traffic, cost, an evaluator&apos;s pass rate) and tells your channels when it crosses a threshold or changes beyond chance.
            </>
          ),
          }
        }
      >
        {(list) => (
          <div className="panel" tabIndex={0} role="region" aria-label="Alert rules (scrolls sideways)">
            <Table striped verticalSpacing={6} aria-label="Alert rules">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Rule</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>Recent values</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((r) => (
                  <RuleRow key={r.id} projectId={projectId} rule={r} allowed={allowed} now={now} />
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </QueryState>
      <Channels projectId={projectId} allowed={allowed} />
    </div>
  );
}

function RuleRow({ projectId, rule, allowed, now }: { projectId: string; rule: AlertRule; allowed: boolean; now: number }) {
  const history = useRuleHistory(projectId, rule.id, 60);
  const { acknowledge, update } = useRuleMutations(projectId);
  const values = windowValues(history.data ?? []).map((w) => w.value);
  const snoozed = rule.snoozedUntil !== null && rule.snoozedUntil > now;
  const error = acknowledge.error ?? update.error;
  return (
    <Table.Tr>
      <Table.Td>
        <Link to="/p/$projectId/alerts/$ruleId" params={{ projectId, ruleId: rule.id }}>
          {rule.name}
        </Link>
        <Text size="xs" className="muted">
          {METRICS[rule.metric.kind].label}
          {rule.splitBy ? ` by ${rule.splitBy}` : ''} · {rule.windowMinutes} min
        </Text>
        <RuleJudgeTrust projectId={projectId} rule={rule} />
      </Table.Td>
      <Table.Td>
        <RuleState rule={rule} now={now} />
      </Table.Td>
      <Table.Td>
        <Sparkline values={values} label={`${rule.name}: the last ${values.length} windows`} width={120} />
      </Table.Td>
      <Table.Td>
        {allowed && (
          <Group gap={4} wrap="nowrap">
            {rule.state === 'firing' && rule.acknowledgedAt === null && (
              <Button size="compact-xs" variant="light" onClick={() => acknowledge.mutate(rule.id)}>
                Acknowledge
              </Button>
            )}
            <Button size="compact-xs" variant="default" onClick={() => update.mutate({ id: rule.id, body: { muted: !rule.muted } })}>
              {rule.muted ? 'Unmute' : 'Mute'}
            </Button>
            <Menu position="bottom-end">
              <Menu.Target>
                <Button size="compact-xs" variant="default">
                  {snoozed ? 'Snoozed' : 'Snooze'}
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                {[
                  [1, '1 hour'],
                  [8, '8 hours'],
                  [24, '1 day'],
                  [168, '1 week'],
                ].map(([hours, label]) => (
                  <Menu.Item key={label} onClick={() => update.mutate({ id: rule.id, body: { snoozedUntil: Date.now() + Number(hours) * HOUR } })}>
                    For {label}
                  </Menu.Item>
                ))}
                {snoozed && <Menu.Item onClick={() => update.mutate({ id: rule.id, body: { snoozedUntil: null } })}>Wake up now</Menu.Item>}
              </Menu.Dropdown>
            </Menu>
          </Group>
        )}
        {error && (
          <Text size="xs" c="red.8">
            {error.message}
          </Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

function Channels({ projectId, allowed }: { projectId: string; allowed: boolean }) {
  const channels = useChannels(projectId);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Channels
      </Title>
      <Text size="sm" className="muted">
        Where alerts go besides the project&apos;s webhooks. A rule notifies the channels it chooses, or every channel when it chooses none.
      </Text>
      {channels.isError && <Alert color="red">{channels.error.message}</Alert>}
      {channels.data && channels.data.length > 0 && (
        <div className="panel" tabIndex={0} role="region" aria-label="Alert channels (scrolls sideways)">
          <Table verticalSpacing={6} aria-label="Alert channels">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Kind</Table.Th>
                <Table.Th>Target</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {channels.data.map((c) => (
                <ChannelRow key={c.id} projectId={projectId} channel={c} allowed={allowed} open={open === c.id} onToggle={() => setOpen(open === c.id ? null : c.id)} />
              ))}
            </Table.Tbody>
          </Table>
        </div>
      )}
      {open && <DeliveryLog projectId={projectId} channel={channels.data?.find((c) => c.id === open)} />}
      {allowed && <NewChannel projectId={projectId} />}
    </Stack>
  );
}

function ChannelRow({ projectId, channel, allowed, open, onToggle }: { projectId: string; channel: AlertChannel; allowed: boolean; open: boolean; onToggle: () => void }) {
  const { test, remove } = useChannelMutations(projectId);
  return (
    <Table.Tr>
      <Table.Td>{channel.name}</Table.Td>
      <Table.Td>{channel.kind === 'email' ? 'E-mail' : 'Slack'}</Table.Td>
      <Table.Td className="ellipsis" maw={260}>
        {channel.target}
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          {allowed && (
            <Button size="compact-xs" variant="light" loading={test.isPending} onClick={() => test.mutate(channel.id)}>
              Send a test
            </Button>
          )}
          <Button size="compact-xs" variant="default" onClick={onToggle} aria-expanded={open}>
            Delivery log
          </Button>
          {allowed && (
            <Button size="compact-xs" variant="subtle" color="red" onClick={() => remove.mutate(channel.id)}>
              Delete
            </Button>
          )}
        </Group>
        {test.data && (
          <Text size="xs" c={test.data.sent ? 'teal.9' : 'red.8'} role="status">
            {test.data.sent ? 'Test sent.' : `Not sent: ${test.data.error}`}
          </Text>
        )}
        {test.isError && (
          <Text size="xs" c="red.8">
            {test.error.message}
          </Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

function DeliveryLog({ projectId, channel }: { projectId: string; channel: AlertChannel | undefined }) {
  const log = useChannelDeliveries(projectId, channel?.id ?? null);
  if (!channel) return null;
  return (
    <Stack gap={4}>
      <Title order={3} size="h5">
        Delivery log: {channel.name}
      </Title>
      {log.isError && <Alert color="red">{log.error.message}</Alert>}
      {log.data && log.data.length === 0 && (
        <Text size="sm" className="muted">
          No alert was sent to this channel yet.
        </Text>
      )}
      {log.data && log.data.length > 0 && <DeliveryTable rows={log.data} />}
    </Stack>
  );
}

/** Messages with their outcome: sent, pending (retried with backoff) or failed after the last attempt. */
export function DeliveryTable({ rows, channelNames }: { rows: { id: string; subject: string; status: string; attempts: number; lastError: string | null; createdAt: number; channelName?: string }[]; channelNames?: boolean }) {
  return (
    <div className="panel" tabIndex={0} role="region" aria-label="Deliveries (scrolls sideways)">
      <Table verticalSpacing={4} aria-label="Deliveries">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>When</Table.Th>
            {channelNames && <Table.Th>Channel</Table.Th>}
            <Table.Th>Message</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Attempts</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((d) => (
            <Table.Tr key={d.id}>
              <TimeCell at={d.createdAt} />
              {channelNames && <Table.Td>{d.channelName}</Table.Td>}
              <Table.Td>{d.subject}</Table.Td>
              <Table.Td>
                {d.status}
                {d.lastError && (
                  <Text size="xs" c="red.8">
                    {d.lastError}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>{d.attempts}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </div>
  );
}

function NewChannel({ projectId }: { projectId: string }) {
  const { create } = useChannelMutations(projectId);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'email' | 'slack'>('slack');
  const [target, setTarget] = useState('');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          { name: name.trim(), kind, target: target.trim() },
          {
            onSuccess: () => {
              setName('');
              setTarget('');
            },
          },
        );
      }}
    >
      <Group align="flex-start" gap="sm" wrap="wrap">
        <TextInput size="sm" label="Channel name" value={name} onChange={(e) => setName(e.currentTarget.value)} required w={200} maw="100%" error={fieldError(create.error, 'name')} />
        <NativeSelect
          size="sm"
          label="Kind"
          value={kind}
          onChange={(e) => setKind(e.currentTarget.value as 'email' | 'slack')}
          data={[
            { value: 'slack', label: 'Slack (incoming webhook)' },
            { value: 'email', label: 'E-mail' },
          ]}
          error={fieldError(create.error, 'kind')}
          w={220}
          maw="100%"
        />
        <TextInput
          size="sm"
          label={kind === 'email' ? 'Address' : 'Webhook URL'}
          value={target}
          onChange={(e) => setTarget(e.currentTarget.value)}
          required
          w={320}
          maw="100%"
          error={fieldError(create.error, 'target')}
        />
        <Button type="submit" size="sm" mt={24} loading={create.isPending}>
          Add channel
        </Button>
      </Group>
    </form>
  );
}

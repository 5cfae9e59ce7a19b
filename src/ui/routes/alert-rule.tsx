import { useState } from 'react';
import { Alert, Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconPencil } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { METRICS, useRule, useRuleHistory, useRuleMutations, type AlertRule } from '../api/alerts.ts';
import { GET } from '../api/client.ts';
import { can, useSession } from '../api/session.ts';
import { RuleState, formatMetric, formatP, windowValues } from '../components/AlertParts.tsx';
import { ButtonLink } from '../components/ButtonLink.tsx';
import { RuleJudgeTrust } from '../components/JudgeTrust.tsx';
import { FilterChips } from '../components/FilterChips.tsx';
import { Sparkline } from '../components/Sparkline.tsx';
import { dateFormat, formatFullTime } from '../lib/format.ts';
import { DeliveryTable } from './alerts.tsx';
import { Loading } from '../components/QueryState.tsx';

const DECISION_COLOR = { breach: 'red.9', calm: 'teal.9', too_few: 'gray.7', held: 'orange.9' } as const;

/** One rule: its definition, its state and actions, every evaluation with its numbers, and every notification. */
export default function AlertRulePage() {
  const { projectId, ruleId } = useParams({ from: '/p/$projectId/alerts/$ruleId' });
  const rule = useRule(projectId, ruleId);
  const history = useRuleHistory(projectId, ruleId, 200);
  const notifications = useQuery({
    queryKey: ['alert-notifications', projectId, ruleId],
    queryFn: async ({ signal }) => (await GET('/api/alerts/rules/{id}/notifications', { params: { path: { id: ruleId } }, projectId, signal })).data,
    refetchInterval: 15_000,
  });
  const { acknowledge, update, remove } = useRuleMutations(projectId);
  const navigate = useNavigate();
  const { data: session } = useSession();
  const allowed = can(session, 'alerts:manage');
  const [now] = useState(() => Date.now());
  const back = (
    <Link to="/p/$projectId/alerts" params={{ projectId }} className="back-link">
      <IconArrowLeft size={14} aria-hidden /> Alerts
    </Link>
  );
  if (rule.isPending)
    return (
      <div className="page">
        {back}
        <Loading label="Loading the rule" inline />
      </div>
    );
  if (rule.isError)
    return (
      <div className="page">
        {back}
        <Alert color="red">{rule.error.message}</Alert>
      </div>
    );
  const r = rule.data;
  const kind = r.metric.kind;
  const at = dateFormat({ month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
  const error = acknowledge.error ?? update.error ?? remove.error;
  return (
    <div className="page">
      {back}
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <Stack gap={4}>
          <Title order={1} size="h3">
            {r.name}
          </Title>
          <RuleState rule={r} now={now} />
        </Stack>
        {allowed && (
          <Group gap="xs" wrap="wrap">
            {r.state === 'firing' && r.acknowledgedAt === null && (
              <Button size="xs" variant="light" onClick={() => acknowledge.mutate(r.id)}>
                Acknowledge
              </Button>
            )}
            <Button size="xs" variant="default" onClick={() => update.mutate({ id: r.id, body: { muted: !r.muted } })}>
              {r.muted ? 'Unmute' : 'Mute'}
            </Button>
            <Button size="xs" variant="default" onClick={() => update.mutate({ id: r.id, body: { enabled: !r.enabled } })}>
              {r.enabled ? 'Disable' : 'Enable'}
            </Button>
            <ButtonLink to="/p/$projectId/alerts/$ruleId/edit" params={{ projectId, ruleId: r.id }} size="xs" variant="default" leftSection={<IconPencil size={14} />}>
              Edit
            </ButtonLink>
            <Button size="xs" variant="subtle" color="red" onClick={() => remove.mutate(r.id, { onSuccess: () => void navigate({ to: '/p/$projectId/alerts', params: { projectId } }) })}>
              Delete
            </Button>
          </Group>
        )}
      </Group>
      {error && <Alert color="red">{error.message}</Alert>}
      <Definition rule={r} />
      <RuleJudgeTrust projectId={projectId} rule={r} />
      <Group gap="sm" align="center">
        <Text size="sm" fw={500}>
          Recent windows
        </Text>
        <Sparkline values={windowValues(history.data ?? []).map((w) => w.value)} label={`${r.name}: recent windows`} width={240} height={36} />
      </Group>

      <Title order={2} size="h4">
        Evaluations
      </Title>
      {history.isError && <Alert color="red">{history.error.message}</Alert>}
      {history.data && history.data.length === 0 && (
        <Text size="sm" className="muted">
          No window evaluated yet: the first is evaluated when it ends ({r.windowMinutes} minutes after it starts).
        </Text>
      )}
      {history.data && history.data.length > 0 && (
        <div className="panel" tabIndex={0} role="region" aria-label="Evaluations (scrolls sideways)">
          <Table striped verticalSpacing={4} aria-label="Evaluations">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Window</Table.Th>
                {r.splitBy && <Table.Th>{r.splitBy}</Table.Th>}
                <Table.Th>Value</Table.Th>
                <Table.Th>95 % interval</Table.Th>
                <Table.Th>Count</Table.Th>
                <Table.Th>Baseline</Table.Th>
                <Table.Th>p-value</Table.Th>
                <Table.Th>Decision</Table.Th>
                <Table.Th>State</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {history.data.map((e) => (
                <Table.Tr key={`${e.windowEnd}-${e.segment}`}>
                  <Table.Td className="nowrap" title={`${formatFullTime(e.windowStart)} to ${formatFullTime(e.windowEnd)}`}>
                    {at.format(e.windowStart)} – {at.format(e.windowEnd)}
                  </Table.Td>
                  {r.splitBy && <Table.Td>{e.segment}</Table.Td>}
                  <Table.Td>{formatMetric(kind, e.value)}</Table.Td>
                  <Table.Td className="nowrap">{e.low === null || e.high === null ? '–' : `${formatMetric(kind, e.low)} – ${formatMetric(kind, e.high)}`}</Table.Td>
                  <Table.Td>{e.count}</Table.Td>
                  <Table.Td>{e.baseline === null && e.baselineCount === null ? '–' : `${formatMetric(kind, e.baseline)} of ${e.baselineCount ?? 0}`}</Table.Td>
                  <Table.Td>{formatP(e.pValue)}</Table.Td>
                  <Table.Td>
                    <Badge size="sm" variant="filled" color={DECISION_COLOR[e.decision]}>
                      {e.decision.replace('_', ' ')}
                    </Badge>
                    {e.held && (
                      <Text size="xs" data-testid="held-because">
                        {e.held}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{e.state}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
      )}

      <Title order={2} size="h4">
        Notifications
      </Title>
      {notifications.isError && <Alert color="red">{notifications.error.message}</Alert>}
      {notifications.data && notifications.data.length === 0 && (
        <Text size="sm" className="muted">
          No message sent to a channel yet. (The project&apos;s webhooks get the alert.firing and alert.resolved events too.)
        </Text>
      )}
      {notifications.data && notifications.data.length > 0 && <DeliveryTable rows={notifications.data} channelNames />}
    </div>
  );
}

function Definition({ rule }: { rule: AlertRule }) {
  const c = rule.condition as { kind: string; operator?: string; value?: number; alpha?: number; baseline?: { kind: string }; consecutive?: number; minCount?: number };
  const when =
    c.kind === 'threshold'
      ? `${c.operator} ${formatMetric(rule.metric.kind, c.value)}`
      : `a change against the ${c.baseline?.kind === 'week' ? 'same window a week earlier' : c.baseline?.kind === 'reference' ? 'reference period' : 'previous window'} (alpha ${c.alpha})`;
  return (
    <dl className="kv">
      <dt>Metric</dt>
      <dd>
        {METRICS[rule.metric.kind].label}
        {rule.metric.evaluator ? ` of ${rule.metric.evaluator}` : ''}
        {rule.splitBy ? `, split by ${rule.splitBy}` : ''}
      </dd>
      <dt>Traces</dt>
      <dd>
        <FilterChips filters={rule.filters} />
      </dd>
      <dt>Window</dt>
      <dd>{rule.windowMinutes} minutes</dd>
      <dt>Fires on</dt>
      <dd>
        {when}, {c.consecutive ?? 1} window(s) in a row, at least {c.minCount ?? 1} events; resolves after {rule.resolveAfter} calm windows
      </dd>
    </dl>
  );
}

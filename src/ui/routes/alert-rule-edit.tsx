import { useState } from 'react';
import { Alert, Button, Checkbox, Fieldset, Group, Loader, NativeSelect, NumberInput, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { METRICS, SEGMENTS, useChannels, useRule, useRuleMutations, type AlertRule, type MetricKind, type RuleBody } from '../api/alerts.ts';
import { PreviewChart } from '../components/AlertParts.tsx';
import { FilterFields, filterText, filtersOf, type FilterText } from '../components/FilterFields.tsx';
import { formErrors } from '../lib/form-errors.ts';

/** The fields of the form, as paths of the request body: a refusal is shown next to its field. */
const FIELDS = [
  'name',
  'metric.kind',
  'metric.evaluator',
  'metric.configId',
  'metric.category',
  'filters',
  'splitBy',
  'windowMinutes',
  'condition.kind',
  'condition.operator',
  'condition.value',
  'condition.direction',
  'condition.baseline',
  'condition.alpha',
  'condition.consecutive',
  'condition.minCount',
  'resolveAfter',
  'channels',
] as const;

interface Form {
  name: string;
  kind: MetricKind;
  evaluator: string;
  configId: string;
  category: string;
  filter: FilterText;
  splitBy: string;
  windowMinutes: number | string;
  condition: 'threshold' | 'change';
  operator: 'above' | 'below';
  value: number | string;
  baseline: 'previous' | 'week';
  direction: string;
  alpha: number | string;
  consecutive: number | string;
  minCount: number | string;
  resolveAfter: number | string;
  allChannels: boolean;
  channels: string[];
}

function formOf(rule: AlertRule | undefined): Form {
  const c = (rule?.condition ?? {}) as Record<string, unknown>;
  const baseline = (c.baseline as { kind?: string } | undefined)?.kind;
  return {
    name: rule?.name ?? '',
    kind: rule?.metric.kind ?? 'error_rate',
    evaluator: rule?.metric.evaluator ?? '',
    configId: rule?.metric.configId ?? '',
    category: rule?.metric.category ?? '',
    filter: filterText(rule?.filters),
    splitBy: rule?.splitBy ?? '',
    windowMinutes: rule?.windowMinutes ?? 60,
    condition: c.kind === 'change' ? 'change' : 'threshold',
    operator: c.operator === 'below' ? 'below' : 'above',
    value: typeof c.value === 'number' ? c.value : 0.1,
    baseline: baseline === 'week' ? 'week' : 'previous',
    direction: typeof c.direction === 'string' ? c.direction : '',
    alpha: typeof c.alpha === 'number' ? c.alpha : 0.01,
    consecutive: typeof c.consecutive === 'number' ? c.consecutive : 1,
    minCount: typeof c.minCount === 'number' ? c.minCount : 10,
    resolveAfter: rule?.resolveAfter ?? 2,
    allChannels: rule ? rule.channels === null : true,
    channels: rule?.channels ?? [],
  };
}

/** A number field's value as sent: an empty field is sent as it is, for the server to name. */
const num = (v: number | string) => (typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v));

function bodyOf(f: Form): RuleBody {
  const metric: RuleBody['metric'] = { kind: f.kind };
  if (f.kind === 'evaluator_pass_rate' || f.kind === 'thread_pass_rate' || f.kind === 'thread_score_mean') metric.evaluator = f.evaluator.trim();
  if (f.kind === 'score_mean' || f.kind === 'category_share') metric.configId = f.configId.trim();
  if (f.kind === 'category_share') metric.category = f.category.trim();
  const common = { consecutive: num(f.consecutive), minCount: num(f.minCount) };
  return {
    name: f.name.trim(),
    metric,
    filters: filtersOf(f.filter) ?? undefined,
    splitBy: (f.splitBy || null) as RuleBody['splitBy'],
    windowMinutes: num(f.windowMinutes),
    condition:
      f.condition === 'threshold'
        ? { kind: 'threshold', operator: f.operator, value: num(f.value), ...common }
        : { kind: 'change', baseline: { kind: f.baseline }, alpha: num(f.alpha), ...(f.direction ? { direction: f.direction as 'up' | 'down' | 'either' } : {}), ...common },
    resolveAfter: num(f.resolveAfter),
    channels: f.allChannels ? null : f.channels,
  };
}

export function NewAlertRulePage() {
  const { projectId } = useParams({ from: '/p/$projectId/alerts/new' });
  return <RuleEditor projectId={projectId} />;
}

export function EditAlertRulePage() {
  const { projectId, ruleId } = useParams({ from: '/p/$projectId/alerts/$ruleId/edit' });
  const rule = useRule(projectId, ruleId);
  if (rule.isPending)
    return (
      <Group justify="center" p="xl">
        <Loader size="sm" aria-label="Loading the rule" />
      </Group>
    );
  if (rule.isError) return <Alert color="red">{rule.error.message}</Alert>;
  return <RuleEditor projectId={projectId} rule={rule.data} />;
}

/** The rule editor: what is watched, the condition, the channels; a preview over the last 30 days before saving. */
function RuleEditor({ projectId, rule }: { projectId: string; rule?: AlertRule }) {
  const navigate = useNavigate();
  const [form, setForm] = useState<Form>(() => formOf(rule));
  const { create, replace, preview } = useRuleMutations(projectId);
  const channels = useChannels(projectId);
  const saving = rule ? replace : create;
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((f) => ({ ...f, [key]: value }));
  const lastError = saving.error ?? preview.error;
  const errors = formErrors(lastError, FIELDS);
  const family = METRICS[form.kind].family;
  const unit = family === 'rate' ? ' (0 to 1)' : '';

  const save = async () => {
    preview.reset();
    const saved = rule ? await replace.mutateAsync({ id: rule.id, body: bodyOf(form) }) : await create.mutateAsync(bodyOf(form));
    await navigate({ to: '/p/$projectId/alerts/$ruleId', params: { projectId, ruleId: saved.id } });
  };
  const runPreview = () => {
    saving.reset();
    preview.mutate(bodyOf(form));
  };
  const p = preview.data;

  return (
    <div className="page">
      <Link to="/p/$projectId/alerts" params={{ projectId }} className="back-link">
        <IconArrowLeft size={14} aria-hidden /> Alerts
      </Link>
      <Title order={1} size="h3">
        {rule ? `Edit ${rule.name}` : 'New alert rule'}
      </Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save().catch(() => undefined);
        }}
      >
        <Stack gap="md" maw={880}>
          <TextInput label="Name" value={form.name} onChange={(e) => set('name', e.currentTarget.value)} error={errors.at('name')} />
          <Fieldset legend="What is watched">
            <Stack gap="sm">
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                <NativeSelect
                  label="Metric"
                  value={form.kind}
                  onChange={(e) => set('kind', e.currentTarget.value as MetricKind)}
                  data={Object.entries(METRICS).map(([value, m]) => ({ value, label: m.label }))}
                  error={errors.at('metric.kind')}
                />
                {(form.kind === 'evaluator_pass_rate' || form.kind === 'thread_pass_rate' || form.kind === 'thread_score_mean') && (
                  <TextInput label="Evaluator" description="A monitor's name or an evaluator path" value={form.evaluator} onChange={(e) => set('evaluator', e.currentTarget.value)} error={errors.at('metric.evaluator')} />
                )}
                {(form.kind === 'score_mean' || form.kind === 'category_share') && (
                  <TextInput label="Score config id" value={form.configId} onChange={(e) => set('configId', e.currentTarget.value)} error={errors.at('metric.configId')} />
                )}
                {form.kind === 'category_share' && <TextInput label="Category" value={form.category} onChange={(e) => set('category', e.currentTarget.value)} error={errors.at('metric.category')} />}
                <NativeSelect
                  label="Split by"
                  description="One decision per segment (the 10 with most traces)"
                  value={form.splitBy}
                  onChange={(e) => set('splitBy', e.currentTarget.value)}
                  data={[{ value: '', label: 'No split' }, ...SEGMENTS.map((s) => ({ value: s, label: s }))]}
                  error={errors.at('splitBy')}
                />
                <NumberInput label="Window (minutes)" description="5 minutes to 7 days (10080)" value={form.windowMinutes} onChange={(v) => set('windowMinutes', v)} allowDecimal={false} error={errors.at('windowMinutes')} />
              </SimpleGrid>
              <Text size="sm" fw={500}>
                Which traces
              </Text>
              <FilterFields value={form.filter} onChange={(v) => set('filter', v)} idPrefix="rule" />
              {errors.at('filters') && (
                <Text size="xs" c="red.8">
                  {errors.at('filters')}
                </Text>
              )}
            </Stack>
          </Fieldset>
          <Fieldset legend="When it fires">
            <Stack gap="sm">
              <SegmentedControl
                aria-label="Condition"
                value={form.condition}
                onChange={(v) => set('condition', v)}
                data={[
                  { value: 'threshold', label: 'Threshold' },
                  { value: 'change', label: 'Change against a baseline' },
                ]}
              />
              {errors.at('condition.kind') && (
                <Text size="xs" c="red.8" role="alert">
                  {errors.at('condition.kind')}
                </Text>
              )}
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                {form.condition === 'threshold' ? (
                  <>
                    <NativeSelect label="When the value is" value={form.operator} onChange={(e) => set('operator', e.currentTarget.value as Form['operator'])} data={['above', 'below']} error={errors.at('condition.operator')} />
                    <NumberInput label={`Value${unit}`} value={form.value} onChange={(v) => set('value', v)} decimalScale={6} error={errors.at('condition.value')} />
                  </>
                ) : (
                  <>
                    <NativeSelect
                      label="Baseline"
                      value={form.baseline}
                      onChange={(e) => set('baseline', e.currentTarget.value as Form['baseline'])}
                      data={[
                        { value: 'previous', label: 'The previous window' },
                        { value: 'week', label: 'The same window a week earlier' },
                      ]}
                      error={errors.at('condition.baseline')}
                    />
                    <NativeSelect
                      label="Direction"
                      value={form.direction}
                      onChange={(e) => set('direction', e.currentTarget.value)}
                      data={[
                        { value: '', label: `The metric's bad one (${METRICS[form.kind].direction})` },
                        { value: 'up', label: 'Up' },
                        { value: 'down', label: 'Down' },
                        { value: 'either', label: 'Either way' },
                      ]}
                      error={errors.at('condition.direction')}
                    />
                    <NumberInput label="Alpha (false-alarm budget)" description="More than 0, at most 0.5" value={form.alpha} onChange={(v) => set('alpha', v)} decimalScale={6} error={errors.at('condition.alpha')} />
                  </>
                )}
                <NumberInput label="Windows in a row" value={form.consecutive} onChange={(v) => set('consecutive', v)} allowDecimal={false} error={errors.at('condition.consecutive')} />
                <NumberInput label="Minimum events per window" value={form.minCount} onChange={(v) => set('minCount', v)} allowDecimal={false} error={errors.at('condition.minCount')} />
                <NumberInput label="Calm windows before resolved" value={form.resolveAfter} onChange={(v) => set('resolveAfter', v)} allowDecimal={false} error={errors.at('resolveAfter')} />
              </SimpleGrid>
            </Stack>
          </Fieldset>
          <Fieldset legend="Who is told">
            <Stack gap="xs">
              <Checkbox label="Every channel of the project" checked={form.allChannels} onChange={(e) => set('allChannels', e.currentTarget.checked)} />
              {!form.allChannels &&
                (channels.data?.length ? (
                  channels.data.map((c) => (
                    <Checkbox
                      key={c.id}
                      label={`${c.name} (${c.kind === 'email' ? 'e-mail' : 'Slack'})`}
                      checked={form.channels.includes(c.id)}
                      onChange={(e) => set('channels', e.currentTarget.checked ? [...form.channels, c.id] : form.channels.filter((x) => x !== c.id))}
                    />
                  ))
                ) : (
                  <Text size="sm" className="muted">
                    No channels yet: add one on the Alerts page. The project&apos;s webhooks get every alert.
                  </Text>
                ))}
              {errors.at('channels') && (
                <Text size="xs" c="red.8" role="alert">
                  {errors.at('channels')}
                </Text>
              )}
            </Stack>
          </Fieldset>
          {errors.elsewhere && <Alert color="red">{errors.elsewhere}</Alert>}
          <Group>
            <Button variant="default" onClick={runPreview} loading={preview.isPending}>
              Preview the last 30 days
            </Button>
            <Button type="submit" loading={saving.isPending}>
              {rule ? 'Save changes' : 'Create rule'}
            </Button>
          </Group>
          {p && (
            <Stack gap={4} aria-label="Preview">
              <Text fw={600} role="status">
                Would have fired {p.fired} {p.fired === 1 ? 'time' : 'times'} in the last 30 days
              </Text>
              <PreviewChart windows={p.windows} fires={p.fires} threshold={form.condition === 'threshold' ? num(form.value) : null} kind={form.kind} />
              <Text size="xs" className="muted">
                Each window&apos;s value{form.splitBy ? ' (of the segment nearest to firing)' : ''}; a red line where the rule would have fired{form.condition === 'threshold' ? ', dashed: the threshold' : ''}.
              </Text>
            </Stack>
          )}
        </Stack>
      </form>
    </div>
  );
}

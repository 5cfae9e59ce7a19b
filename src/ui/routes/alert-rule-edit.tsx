import { useState } from 'react';
import { Alert, Button, Checkbox, Fieldset, Group, NativeSelect, NumberInput, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { METRICS, SEGMENTS, useChannels, useRule, useRuleMutations, type AlertRule, type MetricKind, type RuleBody } from '../api/alerts.ts';
import { useEvaluatorName, useMonitors } from '../api/evaluators.ts';
import { useScoreConfigs } from '../api/review.ts';
import { PreviewChart, PreviewMarks } from '../components/AlertParts.tsx';
import { FilterFields, filterText, filtersOf, type FilterText } from '../components/FilterFields.tsx';
import { formErrors, type FormErrors } from '../lib/form-errors.ts';
import { localInputValue } from '../lib/format.ts';
import { Unloaded } from '../components/QueryState.tsx';

/** The fields of the form, as paths of the request body: a refusal is shown next to its field. */
const FIELDS = [
  'name',
  'metric.kind',
  'metric.evaluator',
  'metric.requireTrusted',
  'metric.configId',
  'metric.category',
  'filters',
  'splitBy',
  'windowMinutes',
  'condition.kind',
  'condition.operator',
  'condition.value',
  'condition.direction',
  'condition.baseline.start',
  'condition.baseline.end',
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
  requireTrusted: boolean;
  configId: string;
  category: string;
  filter: FilterText;
  splitBy: string;
  windowMinutes: number | string;
  condition: 'threshold' | 'change';
  operator: 'above' | 'below';
  value: number | string;
  baseline: 'previous' | 'week' | 'reference';
  /** The reference period's ends, as the datetime-local inputs hold them (the browser's time zone). */
  referenceFrom: string;
  referenceTo: string;
  direction: string;
  alpha: number | string;
  consecutive: number | string;
  minCount: number | string;
  resolveAfter: number | string;
  allChannels: boolean;
  channels: string[];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function formOf(rule: AlertRule | undefined): Form {
  const c = (rule?.condition ?? {}) as Record<string, unknown>;
  const b = (c.baseline ?? {}) as { kind?: string; start?: number; end?: number };
  const baseline = b.kind;
  // A new reference period: the week that ended at the last whole hour, a day ago.
  const lastHour = Math.floor(Date.now() / HOUR) * HOUR - DAY;
  return {
    name: rule?.name ?? '',
    kind: rule?.metric.kind ?? 'error_rate',
    evaluator: rule?.metric.evaluator ?? '',
    requireTrusted: rule?.metric.requireTrusted ?? false,
    configId: rule?.metric.configId ?? '',
    category: rule?.metric.category ?? '',
    filter: filterText(rule?.filters),
    splitBy: rule?.splitBy ?? '',
    windowMinutes: rule?.windowMinutes ?? 60,
    condition: c.kind === 'change' ? 'change' : 'threshold',
    operator: c.operator === 'below' ? 'below' : 'above',
    value: typeof c.value === 'number' ? c.value : 0.1,
    baseline: baseline === 'week' || baseline === 'reference' ? baseline : 'previous',
    referenceFrom: localInputValue(typeof b.start === 'number' ? b.start : lastHour - 7 * DAY),
    referenceTo: localInputValue(typeof b.end === 'number' ? b.end : lastHour),
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
/** A datetime-local field's time (epoch ms); an empty or unreadable one is left out, for the server to call it required. */
const time = (v: string) => (v && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : (undefined as unknown as number));

const SEGMENT_LABELS: Record<(typeof SEGMENTS)[number], string> = {
  model: 'Model',
  label: 'Label',
  user: 'User',
  customer: 'Customer',
  prompt: 'Prompt version',
  evaluator: 'Evaluator',
  topic: 'Topic',
};

/** The segments a metric can be split by: evaluator only for an evaluator's metrics, none for a review score's. */
function segmentsFor(kind: MetricKind): (typeof SEGMENTS)[number][] {
  const source = METRICS[kind].source;
  if (source === 'scores') return [];
  return SEGMENTS.filter((s) => s !== 'evaluator' || source === 'evaluations' || source === 'thread_evaluations');
}

function bodyOf(f: Form): RuleBody {
  const metric: RuleBody['metric'] = { kind: f.kind };
  const source = METRICS[f.kind].source;
  // Split by evaluator, no evaluator chosen: every evaluator.
  if ((source === 'evaluations' || source === 'thread_evaluations') && (f.evaluator || f.splitBy !== 'evaluator')) metric.evaluator = f.evaluator;
  if (source === 'scores') metric.configId = f.configId;
  if (f.kind === 'category_share') metric.category = f.category;
  if (f.kind === 'evaluator_pass_rate' && f.requireTrusted) metric.requireTrusted = true;
  const baseline: Extract<RuleBody['condition'], { kind: 'change' }>['baseline'] =
    f.baseline === 'reference' ? { kind: 'reference', start: time(f.referenceFrom), end: time(f.referenceTo) } : { kind: f.baseline };
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
        : { kind: 'change', baseline, alpha: num(f.alpha), ...(f.direction ? { direction: f.direction as 'up' | 'down' | 'either' } : {}), ...common },
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
  if (!rule.isSuccess) return <Unloaded query={rule} loading="Loading the rule" failed="The rule could not be loaded" />;
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
                  onChange={(e) => {
                    const kind = e.currentTarget.value as MetricKind;
                    // A split the new metric cannot have is dropped, and a score config of the other kind (categorical or not).
                    setForm((f) => ({
                      ...f,
                      kind,
                      splitBy: (segmentsFor(kind) as string[]).includes(f.splitBy) ? f.splitBy : '',
                      ...((kind === 'category_share') !== (f.kind === 'category_share') ? { configId: '', category: '' } : {}),
                    }));
                  }}
                  data={Object.entries(METRICS).map(([value, m]) => ({ value, label: m.label }))}
                  error={errors.at('metric.kind')}
                />
                <MetricSubjectFields projectId={projectId} form={form} set={set} errors={errors} />
                {form.kind === 'evaluator_pass_rate' && (
                  <Checkbox
                    label="Fire only while this judge is trusted"
                    description="While its agreement with people is below the project's trust rule, windows are held back and the history says why"
                    checked={form.requireTrusted}
                    onChange={(e) => set('requireTrusted', e.currentTarget.checked)}
                    error={errors.at('metric.requireTrusted')}
                  />
                )}
                <NativeSelect
                  label="Split by"
                  description={segmentsFor(form.kind).length ? 'One decision per segment, corrected together' : 'A review score cannot be split'}
                  value={form.splitBy}
                  onChange={(e) => set('splitBy', e.currentTarget.value)}
                  disabled={!segmentsFor(form.kind).length}
                  data={[{ value: '', label: 'No split' }, ...segmentsFor(form.kind).map((value) => ({ value, label: SEGMENT_LABELS[value] }))]}
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
                        { value: 'reference', label: 'A reference period' },
                      ]}
                      error={errors.at('condition.baseline.kind') ?? (errors.at('condition.baseline.start') || errors.at('condition.baseline.end') ? undefined : errors.at('condition.baseline'))}
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
                    {form.baseline === 'reference' && (
                      <>
                        <TextInput
                          type="datetime-local"
                          label="Reference from"
                          description="A period that looked healthy, at least one window long"
                          value={form.referenceFrom}
                          onChange={(e) => set('referenceFrom', e.currentTarget.value)}
                          error={errors.at('condition.baseline.start')}
                        />
                        <TextInput type="datetime-local" label="Reference to" description="Over before now" value={form.referenceTo} onChange={(e) => set('referenceTo', e.currentTarget.value)} error={errors.at('condition.baseline.end')} />
                      </>
                    )}
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
                {p.held !== null && `; held back in ${p.heldWindows} ${p.heldWindows === 1 ? 'window' : 'windows'}`}
              </Text>
              {p.held !== null && (
                <Text size="sm" data-testid="preview-held">
                  Replayed as it would run now: {p.held}. While the judge is not trusted, windows past the condition are held back, not fired.
                </Text>
              )}
              <PreviewChart windows={p.windows} fires={p.fires} threshold={form.condition === 'threshold' ? num(form.value) : null} kind={form.kind} />
              <Text size="xs" className="muted">
                Each window&apos;s value{form.splitBy ? ' (of the segment nearest to firing)' : ''}; a red line where the rule would have fired{p.held !== null ? ', a dashed orange one where it was held back' : ''}
                {form.condition === 'threshold' ? ', dashed: the threshold' : ''}.
              </Text>
              <PreviewMarks fires={p.fires} windows={p.windows} kind={form.kind} />
            </Stack>
          )}
        </Stack>
      </form>
    </div>
  );
}

/**
 * What an evaluator's or a review score's metric is about: the project's evaluators (its
 * monitors, custom judges included) and its score configs to choose from, with a categorical
 * config's categories. A rule naming one no longer listed keeps it as a choice.
 */
function MetricSubjectFields({ projectId, form, set, errors }: { projectId: string; form: Form; set: <K extends keyof Form>(key: K, value: Form[K]) => void; errors: FormErrors }) {
  const source = METRICS[form.kind].source;
  const monitors = useMonitors(projectId);
  const configs = useScoreConfigs(projectId);
  const evaluatorName = useEvaluatorName(projectId);
  if (source === 'evaluations' || source === 'thread_evaluations') {
    // A thread metric reads thread monitors' results; the others, trace monitors'.
    const unit = source === 'thread_evaluations' ? 'thread' : 'trace';
    const choices = (monitors.data ?? []).filter((m) => m.unit === unit).map((m) => ({ value: m.name, label: `${m.name} (${evaluatorName(m.evaluator)})` }));
    if (form.evaluator && !choices.some((c) => c.value === form.evaluator)) choices.push({ value: form.evaluator, label: form.evaluator });
    const every = form.splitBy === 'evaluator';
    return (
      <NativeSelect
        label="Evaluator"
        description={choices.length ? (unit === 'thread' ? "A thread monitor's evaluations" : "A monitor's evaluations") : `No ${unit === 'thread' ? 'thread ' : ''}monitors yet: add one under Evaluators`}
        value={form.evaluator}
        onChange={(e) => set('evaluator', e.currentTarget.value)}
        data={[{ value: '', label: every ? 'Every evaluator' : 'Choose an evaluator' }, ...choices]}
        error={errors.at('metric.evaluator')}
      />
    );
  }
  if (source !== 'scores') return null;
  const categorical = form.kind === 'category_share';
  const fitting = (configs.data ?? []).filter((c) => (categorical ? c.kind === 'categorical' : c.kind !== 'categorical'));
  const choices = fitting.map((c) => ({ value: c.id, label: `${c.name} (${c.kind})` }));
  if (form.configId && !choices.some((c) => c.value === form.configId)) choices.push({ value: form.configId, label: form.configId });
  const categories = (configs.data ?? []).find((c) => c.id === form.configId)?.categories ?? [];
  const categoryChoices = form.category && !categories.includes(form.category) ? [...categories, form.category] : categories;
  return (
    <>
      <NativeSelect
        label="Score config"
        description={choices.length ? (categorical ? 'A categorical review score' : 'A numeric or yes/no review score') : `No ${categorical ? 'categorical' : 'numeric or yes/no'} score configs yet: add one under Review`}
        value={form.configId}
        onChange={(e) => chooseConfig(e.currentTarget.value)}
        data={[{ value: '', label: 'Choose a score config' }, ...choices]}
        error={errors.at('metric.configId')}
      />
      {categorical && (
        <NativeSelect
          label="Category"
          description="The share of scores in this category"
          value={form.category}
          onChange={(e) => set('category', e.currentTarget.value)}
          data={[{ value: '', label: 'Choose a category' }, ...categoryChoices.map((c) => ({ value: c, label: c }))]}
          error={errors.at('metric.category')}
        />
      )}
    </>
  );

  /** Another config: its first category, or none. */
  function chooseConfig(configId: string) {
    set('configId', configId);
    set('category', (configs.data ?? []).find((c) => c.id === configId)?.categories?.[0] ?? '');
  }
}

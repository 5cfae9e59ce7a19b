import { useState } from 'react';
import { Alert, Badge, Button, Group, NativeSelect, NumberInput, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { IconArrowLeft, IconSend } from '@tabler/icons-react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useEvaluatorName } from '../api/evaluators.ts';
import { useAlignment, useAlignmentMutations, useJudges, useLabelMore, useTrustRule, useVersionComparisons, type Alignment, type Estimate, type JudgeChoice, type TrustRule } from '../api/judge-alignment.ts';
import { useQueues, useScoreConfigs } from '../api/review.ts';
import { can, useSession } from '../api/session.ts';
import { percent, TRUST_COLOR } from '../components/JudgeTrust.tsx';
import { fieldError, formErrors } from '../lib/form-errors.ts';
import { oneLine } from '../lib/format.ts';
import { Loading, Unloaded } from '../components/QueryState.tsx';

const NEW_QUEUE = '__new__';
const two = (v: number) => v.toFixed(2);

/** Kappa in words (Landis and Koch's bands): what a team lead reads next to the number. */
function kappaWords(v: number): string {
  if (v < 0) return 'worse than chance';
  if (v < 0.2) return 'slight';
  if (v < 0.4) return 'fair';
  if (v < 0.6) return 'moderate';
  if (v < 0.8) return 'substantial';
  return 'almost perfect';
}

const valueText = (v: number | string | boolean) => (typeof v === 'boolean' ? (v ? 'pass' : 'fail') : String(v));

/**
 * A judge measured against people: choose the evaluator (and version) and the human score config;
 * the agreement with its intervals in words, whether the judge can be trusted and why, its raw and
 * corrected pass rate, the disagreements (to a review queue in one step) and traces to label next.
 */
export default function JudgeAlignmentPage() {
  const { projectId } = useParams({ from: '/p/$projectId/evaluators/alignment' });
  const search = useSearch({ from: '/p/$projectId/evaluators/alignment' });
  const navigate = useNavigate({ from: '/p/$projectId/evaluators/alignment' });
  const judges = useJudges(projectId);
  const configs = useScoreConfigs(projectId);
  const evaluatorName = useEvaluatorName(projectId);
  const choice: JudgeChoice | null = search.evaluator && search.config ? { evaluator: search.evaluator, version: search.version, scoreConfig: search.config } : null;
  const alignment = useAlignment(projectId, choice);
  const judge = judges.data?.find((j) => j.evaluator === search.evaluator);
  const choose = (patch: Partial<{ evaluator: string; version: number; config: string }>) => void navigate({ search: (s) => ({ ...s, ...patch }), replace: true });

  return (
    <div className="page">
      <div>
        <Link to="/p/$projectId/evaluators" params={{ projectId }} className="back-link">
          <IconArrowLeft size={14} aria-hidden /> Evaluators
        </Link>
        <Title order={1} size="h3" mt={4}>
          Judge alignment
        </Title>
        <Text size="sm" className="muted" maw={820}>
          How far a judge agrees with people, on the traces both scored: each number with the range it is 95 % likely to lie in, and whether the judge can be trusted by this project&apos;s rule.
        </Text>
      </div>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <NativeSelect
          label="Judge"
          aria-label="Judge"
          value={search.evaluator ?? ''}
          onChange={(e) => choose({ evaluator: e.currentTarget.value || undefined, version: undefined })}
          data={[
            { value: '', label: judges.isPending ? 'Loading…' : 'Choose a judge' },
            ...(judges.data ?? []).map((j) => ({ value: j.evaluator, label: `${evaluatorName(j.evaluator)} (${j.results} results)` })),
            // The judge the address names shows at once, before (or without) the list's answer.
            ...(search.evaluator && !judge ? [{ value: search.evaluator, label: evaluatorName(search.evaluator) }] : []),
          ]}
        />
        {judge && judge.versions.length > 0 && (
          <NativeSelect
            label="Version"
            value={search.version === undefined ? '' : String(search.version)}
            onChange={(e) => choose({ version: e.currentTarget.value ? Number(e.currentTarget.value) : undefined })}
            data={[{ value: '', label: 'All versions' }, ...judge.versions.map((v) => ({ value: String(v), label: `Version ${v}` }))]}
          />
        )}
        <NativeSelect
          label="People's score"
          value={search.config ?? ''}
          onChange={(e) => choose({ config: e.currentTarget.value || undefined })}
          data={[
            { value: '', label: configs.isPending ? 'Loading…' : 'Choose a score config' },
            ...(configs.data ?? []).map((c) => ({ value: c.id, label: `${c.name} (${c.kind})` })),
            ...(search.config && !configs.data?.some((c) => c.id === search.config) ? [{ value: search.config, label: configs.isPending ? 'Loading…' : search.config }] : []),
          ]}
        />
      </Group>
      {judges.data?.length === 0 && <Alert color="gray">No evaluator has results in this project yet: run one on some traces (a monitor, or its playground) first.</Alert>}
      <TrustRulePanel projectId={projectId} />
      {!choice ? (
        <Text size="sm" className="muted">
          Choose a judge and the score people gave the same traces.
        </Text>
      ) : alignment.isPending ? (
        <Loading label="Measuring the judge" />
      ) : alignment.isError ? (
        <Alert color="red" title="This judge cannot be measured against this score">
          {alignment.error.message}
        </Alert>
      ) : (
        <Measured projectId={projectId} choice={choice} a={alignment.data} />
      )}
    </div>
  );
}

function TrustRulePanel({ projectId }: { projectId: string }) {
  const rule = useTrustRule(projectId);
  const { data: session } = useSession();
  const [editing, setEditing] = useState(false);
  if (!rule.data) return null;
  const r = rule.data;
  return (
    <Paper withBorder p="sm" component="section" aria-label="Trust rule">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="sm" data-testid="trust-rule">
          <b>Trust rule{r.stored ? '' : ' (default)'}:</b> a judge is trusted when {r.statistic === 'kappa' ? "Cohen's kappa" : 'accuracy'} (Spearman&apos;s rho for numeric scores) is at
          least {r.atLeast} even at the low end of its range, on at least {r.minimumLabels} labels.
        </Text>
        {can(session, 'evaluators:update') && !editing && (
          <Button size="xs" variant="default" onClick={() => setEditing(true)}>
            Change the rule
          </Button>
        )}
      </Group>
      {editing && <TrustRuleForm projectId={projectId} rule={r} onDone={() => setEditing(false)} />}
    </Paper>
  );
}

function TrustRuleForm({ projectId, rule, onDone }: { projectId: string; rule: TrustRule; onDone: () => void }) {
  const { setRule } = useAlignmentMutations(projectId);
  const [statistic, setStatistic] = useState<'kappa' | 'accuracy'>(rule.statistic);
  const [atLeast, setAtLeast] = useState<number | string>(rule.atLeast);
  const [minimumLabels, setMinimumLabels] = useState<number | string>(rule.minimumLabels);
  const errors = formErrors(setRule.error, ['statistic', 'atLeast', 'minimumLabels']);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        setRule.mutate({ statistic, atLeast: Number(atLeast), minimumLabels: Number(minimumLabels) }, { onSuccess: onDone });
      }}
    >
      <Group gap="sm" align="flex-start" mt="sm" wrap="wrap">
        <NativeSelect
          label="Statistic"
          value={statistic}
          onChange={(e) => setStatistic(e.currentTarget.value as 'kappa' | 'accuracy')}
          data={[
            { value: 'kappa', label: "Cohen's kappa" },
            { value: 'accuracy', label: 'Accuracy' },
          ]}
          error={errors.at('statistic')}
        />
        <NumberInput label="Lower bound at least" value={atLeast} onChange={setAtLeast} step={0.05} decimalScale={3} w={170} error={errors.at('atLeast')} />
        <NumberInput label="Labels needed" value={minimumLabels} onChange={setMinimumLabels} w={140} error={errors.at('minimumLabels')} />
      </Group>
      {errors.elsewhere && (
        <Alert color="red" mt="xs">
          {errors.elsewhere}
        </Alert>
      )}
      <Group gap="xs" mt="sm">
        <Button size="xs" type="submit" loading={setRule.isPending}>
          Save the rule
        </Button>
        <Button size="xs" variant="default" onClick={onDone}>
          Cancel
        </Button>
      </Group>
    </form>
  );
}

/** "0.47 (moderate), between 0.27 and 0.66, on 60 labels". */
function EstimateLine({ label, e, words, n, testId }: { label: string; e: Estimate | null; words: (e: Estimate) => string; n?: number; testId: string }) {
  return (
    <li data-testid={testId}>
      <b>{label}:</b> {e ? `${words(e)}, on ${n ?? e.n} labels.` : 'not defined on these labels (people or the judge gave one value only).'}
    </li>
  );
}

function Measured({ projectId, choice, a }: { projectId: string; choice: JudgeChoice; a: Alignment }) {
  const between = (e: Estimate, f: (v: number) => string) => `between ${f(e.low)} and ${f(e.high)}`;
  const passes = a.confusion && a.scoreConfig.kind === 'boolean' ? a.confusion[1][0] + a.confusion[1][1] : undefined;
  const fails = a.confusion && a.scoreConfig.kind === 'boolean' ? a.confusion[0][0] + a.confusion[0][1] : undefined;
  return (
    <Stack gap="md">
      <Paper withBorder p="md" component="section" aria-label="Trust">
        <Group gap="sm" wrap="wrap">
          <Badge size="lg" color={TRUST_COLOR[a.trust.state]} variant="light" data-testid="trust-state">
            {a.trust.state}
          </Badge>
          <Text size="sm" data-testid="trust-reason">
            {a.trust.reason}.
          </Text>
        </Group>
        <Text size="sm" mt="xs">
          {a.n} traces have both a person&apos;s {a.scoreConfig.name} and the judge&apos;s result.
        </Text>
      </Paper>

      {a.n > 0 && (
        <Paper withBorder p="md" component="section" aria-label="Agreement">
          <Title order={2} size="h5" mb="xs">
            Agreement with people
          </Title>
          <ul className="alignment-lines">
            {a.accuracy && <EstimateLine testId="accuracy" label="Agrees with people" e={a.accuracy} words={(e) => `on ${percent(e.value)} of traces (${between(e, percent)})`} />}
            {a.confusion && (
              <EstimateLine
                testId="kappa"
                label={a.weighted ? "Agreement beyond chance (weighted kappa; near misses count less)" : "Agreement beyond chance (Cohen's kappa)"}
                e={a.kappa}
                words={(e) => `${two(e.value)}, ${kappaWords(e.value)} (${between(e, two)})`}
              />
            )}
            {a.truePositiveRate && (
              <EstimateLine testId="tpr" label="Of the traces people passed, the judge passes" e={a.truePositiveRate} n={passes} words={(e) => `${percent(e.value)} (${between(e, percent)})`} />
            )}
            {a.trueNegativeRate && (
              <EstimateLine testId="tnr" label="Of the traces people failed, the judge fails" e={a.trueNegativeRate} n={fails} words={(e) => `${percent(e.value)} (${between(e, percent)})`} />
            )}
            {a.scoreConfig.kind === 'numeric' && (
              <>
                <EstimateLine testId="spearman" label="Ranks traces as people do (Spearman's rho, 1 is the same order)" e={a.spearman} words={(e) => `${two(e.value)} (${between(e, two)})`} />
                <EstimateLine testId="mae" label="Off from people's score by, on average" e={a.meanAbsoluteError} words={(e) => `${two(e.value)} (${between(e, two)})`} />
              </>
            )}
          </ul>
          <Text size="xs" className="muted">
            Each range is where the number lies with 95 % confidence, from resampling these labels; more labels make it narrower.
          </Text>
          {a.confusion && a.categories && <Confusion categories={a.categories} counts={a.confusion} />}
        </Paper>
      )}

      {a.passRate && (
        <Paper withBorder p="md" component="section" aria-label="Pass rate">
          <Title order={2} size="h5" mb="xs">
            Pass rate
          </Title>
          <Text size="sm" data-testid="raw-pass-rate">
            The judge passes {percent(a.passRate.raw)} of the {a.passRate.judged} traces it judged ({a.passRate.passed} passed).
          </Text>
          <Text size="sm" data-testid="corrected-pass-rate">
            {a.passRate.corrected
              ? `Corrected for its measured errors, the share people would pass is ${percent(a.passRate.corrected.value)} (${between(a.passRate.corrected, percent)}).`
              : 'It cannot be corrected yet: the labels do not measure both its true-positive and true-negative rates.'}
          </Text>
        </Paper>
      )}

      <Disagreements projectId={projectId} choice={choice} a={a} />
      {a.n > 0 && <SelfConsistencyPanel projectId={projectId} choice={choice} />}
      {a.n > 0 && choice.evaluator.startsWith('custom/') && <VersionComparisonPanel projectId={projectId} choice={choice} />}
      <LabelMorePanel projectId={projectId} choice={choice} />
    </Stack>
  );
}

function Confusion({ categories, counts }: { categories: string[]; counts: number[][] }) {
  return (
    <div className="table-scroll">
      <Table withTableBorder withColumnBorders mt="sm" w="auto" aria-label="Confusion matrix" data-testid="confusion">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>People \ judge</Table.Th>
            {categories.map((c) => (
              <Table.Th key={c}>{c}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {counts.map((row, i) => (
            <Table.Tr key={categories[i]}>
              <Table.Th>{categories[i]}</Table.Th>
              {row.map((v, k) => (
                <Table.Td key={categories[k]} className={i === k ? 'confusion-agree' : undefined}>
                  {v}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </div>
  );
}

function Disagreements({ projectId, choice, a }: { projectId: string; choice: JudgeChoice; a: Alignment }) {
  const total = a.disagreements.length + a.moreDisagreements;
  const { data: session } = useSession();
  const [sending, setSending] = useState(false);
  return (
    <Paper withBorder p="md" component="section" aria-label="Disagreements">
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={2} size="h5">
          Disagreements ({total})
        </Title>
        {total > 0 && can(session, 'reviewQueues:update') && !sending && (
          <Button size="xs" leftSection={<IconSend size={14} />} onClick={() => setSending(true)}>
            Send disagreements to a review queue
          </Button>
        )}
      </Group>
      {sending && <SendToQueue projectId={projectId} choice={choice} total={total} onClose={() => setSending(false)} />}
      {total === 0 ? (
        <Text size="sm" className="muted">
          The judge and people agree on every trace both scored.
        </Text>
      ) : (
        <div className="table-scroll">
          <Table striped aria-label="Disagreements" data-testid="disagreements">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Trace</Table.Th>
                <Table.Th>People</Table.Th>
                <Table.Th>Judge</Table.Th>
                <Table.Th>The judge&apos;s reasoning</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {a.disagreements.map((d) => (
                <Table.Tr key={d.traceId}>
                  <Table.Td>
                    <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: d.traceId }} className="mono nowrap text-link-sm">
                      {d.traceId}
                    </Link>
                  </Table.Td>
                  <Table.Td>{valueText(d.human)}</Table.Td>
                  <Table.Td>{valueText(d.judge)}</Table.Td>
                  <Table.Td>
                    <Text size="xs" className="alignment-reasoning">
                      {d.reasoning ? oneLine(d.reasoning, 400) : '–'}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {a.moreDisagreements > 0 && (
            <Text size="xs" className="muted" mt={4}>
              {a.moreDisagreements} more are not listed; sending to a queue sends them all.
            </Text>
          )}
        </div>
      )}
    </Paper>
  );
}

function SendToQueue({ projectId, choice, total, onClose }: { projectId: string; choice: JudgeChoice; total: number; onClose: () => void }) {
  const queues = useQueues(projectId);
  const { sendDisagreements } = useAlignmentMutations(projectId);
  const [queueId, setQueueId] = useState(NEW_QUEUE);
  const [name, setName] = useState('Judge disagreements');
  const sent = sendDisagreements.data;
  if (sent)
    return (
      <Alert color="teal" mb="sm" data-testid="sent" withCloseButton onClose={onClose}>
        {sent.added} {sent.added === 1 ? 'trace' : 'traces'} added to{' '}
        <Link to="/p/$projectId/queues/$queueId/review" params={{ projectId, queueId: sent.queue.id }}>
          {sent.queue.name}
        </Link>
        {sent.alreadyQueued ? ` (${sent.alreadyQueued} were already there)` : ''}.
      </Alert>
    );
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        sendDisagreements.mutate({ evaluator: choice.evaluator, version: choice.version ?? null, scoreConfig: choice.scoreConfig, ...(queueId === NEW_QUEUE ? { newQueueName: name } : { queueId }) });
      }}
    >
      <Group gap="sm" align="flex-start" mb="sm" wrap="wrap">
        <NativeSelect
          label="Queue"
          value={queueId}
          onChange={(e) => setQueueId(e.currentTarget.value)}
          data={[{ value: NEW_QUEUE, label: 'A new queue' }, ...(queues.data ?? []).map((q) => ({ value: q.id, label: q.name }))]}
          error={fieldError(sendDisagreements.error, 'queueId')}
        />
        {queueId === NEW_QUEUE && <TextInput label="New queue's name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(sendDisagreements.error, 'newQueueName')} />}
      </Group>
      {sendDisagreements.isError && !fieldError(sendDisagreements.error, 'queueId', 'newQueueName') && (
        <Alert color="red" mb="sm">
          {sendDisagreements.error.message}
        </Alert>
      )}
      <Group gap="xs" mb="sm">
        <Button size="xs" type="submit" loading={sendDisagreements.isPending}>
          Send {total} {total === 1 ? 'trace' : 'traces'}
        </Button>
        <Button size="xs" variant="default" onClick={onClose}>
          Cancel
        </Button>
      </Group>
    </form>
  );
}

/** The judge run several times on the same labelled traces: how often it disagrees with itself. */
function SelfConsistencyPanel({ projectId, choice }: { projectId: string; choice: JudgeChoice }) {
  const { selfConsistency } = useAlignmentMutations(projectId);
  const [repeats, setRepeats] = useState<number | string>(3);
  const [limit, setLimit] = useState<number | string>(20);
  const r = selfConsistency.data;
  return (
    <Paper withBorder p="md" component="section" aria-label="Self-consistency">
      <Title order={2} size="h5" mb="xs">
        Does the judge agree with itself?
      </Title>
      <Text size="sm" mb="xs">
        Run the judge again, several times, on the same labelled traces (each run is a model call; nothing is stored).
      </Text>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          selfConsistency.mutate({ evaluator: choice.evaluator, version: choice.version ?? null, scoreConfig: choice.scoreConfig, repeats: Number(repeats), limit: Number(limit) });
        }}
      >
        <Group gap="sm" align="flex-start" wrap="wrap">
          <NumberInput label="Times per trace" description="2 to 10" value={repeats} onChange={setRepeats} w={140} error={fieldError(selfConsistency.error, 'repeats')} />
          <NumberInput label="Traces" description="1 to 50" value={limit} onChange={setLimit} w={140} error={fieldError(selfConsistency.error, 'limit')} />
          <Button size="xs" type="submit" mt={42} loading={selfConsistency.isPending}>
            Run the judge again
          </Button>
        </Group>
      </form>
      {selfConsistency.isError && !fieldError(selfConsistency.error, 'repeats', 'limit') && (
        <Alert color="red" mt="sm">
          {selfConsistency.error.message}
        </Alert>
      )}
      {r && (
        <Stack gap={6} mt="sm">
          <Text size="sm" data-testid="self-consistency-summary">
            {r.summary}
          </Text>
          {r.unmeasured > 0 && (
            <Text size="xs" className="muted">
              {r.unmeasured} traces could not be judged twice and are left out.
            </Text>
          )}
          <ul className="alignment-lines" data-testid="self-consistency-items">
            {r.data
              .filter((d) => d.disagree)
              .map((d) => (
                <li key={d.traceId}>
                  <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: d.traceId }} className="mono nowrap text-link-sm">
                    {d.traceId}
                  </Link>{' '}
                  <Text span size="sm">
                    answered {d.values.map(valueText).join(', ')}
                  </Text>
                </li>
              ))}
          </ul>
        </Stack>
      )}
    </Paper>
  );
}

function LabelMorePanel({ projectId, choice }: { projectId: string; choice: JudgeChoice }) {
  const [open, setOpen] = useState(false);
  return (
    <Paper withBorder p="md" component="section" aria-label="Label more">
      <Group justify="space-between" wrap="wrap">
        <Title order={2} size="h5">
          Label more
        </Title>
        {!open && (
          <Button size="xs" variant="default" onClick={() => setOpen(true)}>
            Propose traces to label
          </Button>
        )}
      </Group>
      {open && <LabelMoreList projectId={projectId} choice={choice} />}
    </Paper>
  );
}

function LabelMoreList({ projectId, choice }: { projectId: string; choice: JudgeChoice }) {
  const more = useLabelMore(projectId, choice);
  if (!more.isSuccess) return <Unloaded query={more} loading="Choosing traces" failed="Traces to label could not be chosen" inline />;
  const m = more.data;
  return (
    <Stack gap={6} mt="xs">
      <Text size="sm" data-testid="label-more-rule">
        {m.unlabelled} traces the judge scored have no label yet. {m.rule}
      </Text>
      <ul className="alignment-lines" data-testid="label-more">
        {m.data.map((t) => (
          <li key={t.traceId}>
            <Link to="/p/$projectId/traces/$traceId" params={{ projectId, traceId: t.traceId }} className="mono nowrap text-link-sm">
              {t.traceId}
            </Link>{' '}
            <Text span size="sm">
              judge: {valueText(t.judge)}
              {t.score !== null && typeof t.judge !== 'number' ? ` (score ${two(t.score)})` : ''}
            </Text>
          </li>
        ))}
      </ul>
    </Stack>
  );
}

/** Dark shades on an outline badge: each verdict readable at 4.5:1 on white, however small the badge. */
const VERDICT_COLOR = { better: 'teal.9', worse: 'red.9', 'no detectable difference': 'gray.7', 'not enough data': 'gray.9' } as const;

/** Improving a judge: a new version run over the traces people labelled, and whether it agrees with them more than the version measured. */
function VersionComparisonPanel({ projectId, choice }: { projectId: string; choice: JudgeChoice }) {
  const { compareVersions } = useAlignmentMutations(projectId);
  const comparisons = useVersionComparisons(projectId, choice.evaluator);
  const [candidate, setCandidate] = useState<number | string>((choice.version ?? 0) + 1);
  const [limit, setLimit] = useState<number | string>(100);
  const shown = (comparisons.data ?? []).filter((c) => c.scoreConfig?.id === choice.scoreConfig && c.baselineVersion === choice.version).slice(0, 3);
  return (
    <Paper withBorder p="md" component="section" aria-label="Compare a new version">
      <Title order={2} size="h5" mb="xs">
        Does a new version agree with people more?
      </Title>
      {choice.version === undefined ? (
        <Text size="sm" className="muted">
          Choose the version people measured (Version, above) to run a newer one on the same labelled traces.
        </Text>
      ) : (
        <>
          <Text size="sm" mb="xs">
            Run another version of this judge on the traces people labelled and version {choice.version} judged, then compare how often each agrees with people, trace by trace (each trace is one model call).
          </Text>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              compareVersions.mutate({ evaluator: choice.evaluator, version: choice.version!, candidateVersion: Number(candidate), scoreConfig: choice.scoreConfig, limit: Number(limit) });
            }}
          >
            <Group gap="sm" align="flex-start" wrap="wrap">
              <NumberInput label="New version" value={candidate} onChange={setCandidate} w={140} min={1} error={fieldError(compareVersions.error, 'candidateVersion')} />
              <NumberInput label="Traces" description="1 to 500" value={limit} onChange={setLimit} w={140} error={fieldError(compareVersions.error, 'limit')} />
              <Button size="xs" type="submit" mt={24} loading={compareVersions.isPending}>
                Compare the versions
              </Button>
            </Group>
          </form>
          {compareVersions.isError && !fieldError(compareVersions.error, 'candidateVersion', 'limit') && (
            <Alert color="red" mt="sm">
              {compareVersions.error.message}
            </Alert>
          )}
          <Stack gap={6} mt="sm" data-testid="version-comparisons">
            {shown.map((c) => (
              <div key={c.id} data-testid="version-comparison" data-status={c.status}>
                {c.status === 'running' ? (
                  <Group gap={6}>
                    <Loading label="Running the new version" size="xs" inline />
                    <Text size="sm">
                      Running version {c.candidateVersion} on up to {c.limit} traces…
                    </Text>
                  </Group>
                ) : c.status === 'failed' ? (
                  <Text size="sm" c="red">
                    Version {c.candidateVersion} could not be compared: {c.error}
                  </Text>
                ) : (
                  c.result && (
                    <Group gap={6} wrap="wrap" align="baseline">
                      <Badge color={VERDICT_COLOR[c.result.verdict]} c={VERDICT_COLOR[c.result.verdict]} variant="outline" size="sm">
                        {c.result.verdict}
                      </Badge>
                      <Text size="sm" data-testid="version-comparison-summary">
                        {c.result.summary}
                      </Text>
                      {c.result.unmeasured > 0 && (
                        <Text size="xs" className="muted">
                          {c.result.unmeasured} traces gave no answer from version {c.candidateVersion} and are left out.
                        </Text>
                      )}
                    </Group>
                  )
                )}
                {c.run && (
                  <Link
                    to="/p/$projectId/experiments/$slug"
                    params={{ projectId, slug: c.run.experimentSlug }}
                    search={{ runId: c.run.runId }}
                    className="text-link-xs"
                    data-testid="version-comparison-run"
                  >
                    Version {c.candidateVersion}'s answers, trace by trace (its experiment run)
                  </Link>
                )}
              </div>
            ))}
          </Stack>
        </>
      )}
    </Paper>
  );
}

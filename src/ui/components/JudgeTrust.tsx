import { Badge, Group, Text, Tooltip } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import { useJudgeTrust, type JudgeTrust } from '../api/judge-alignment.ts';

type TrustState = JudgeTrust['data'][number]['trust']['state'];
export const TRUST_COLOR: Record<TrustState, string> = { trusted: 'teal', 'not trusted': 'red', 'not enough labels': 'gray' };

/** A share as people read it: 58 % (one decimal under 10 %). */
export const percent = (v: number) => `${v !== 0 && Math.abs(v) < 0.1 ? (v * 100).toFixed(1) : Math.round(v * 100)} %`;

/**
 * Whether a judge can be trusted, where its numbers appear (monitors, runs, comparisons): a badge
 * with the state against the score config with the most labels, its reason on hover, and a link to
 * the judge's alignment page. With `counts`, the raw pass rate corrected for the judge's errors.
 */
export function JudgeTrustBadge({ projectId, evaluator, version, counts }: { projectId: string; evaluator: string; version?: number; counts?: { passed: number; judged: number } }) {
  const trust = useJudgeTrust(projectId, evaluator, version, counts);
  const best = trust.data?.data[0];
  const search = { evaluator, ...(version === undefined ? {} : { version }), ...(best ? { config: best.scoreConfig.id } : {}) };
  const link = (label: string) => (
    <Link to="/p/$projectId/evaluators/alignment" params={{ projectId }} search={search} className="text-link-xs">
      {label}
    </Link>
  );
  if (trust.isPending || trust.isError) return null;
  if (!best)
    return (
      <Group gap={6} wrap="wrap" data-testid="judge-trust" data-evaluator={evaluator}>
        <Badge color="gray" variant="light" size="sm">
          judge not measured
        </Badge>
        {link('Measure against people')}
      </Group>
    );
  return (
    <Group gap={6} wrap="wrap" data-testid="judge-trust" data-evaluator={evaluator}>
      <Tooltip label={`Against ${best.scoreConfig.name}: ${best.trust.reason}`} multiline maw={320}>
        <Badge color={TRUST_COLOR[best.trust.state]} variant="light" size="sm" data-state={best.trust.state}>
          judge {best.trust.state}
        </Badge>
      </Tooltip>
      {link('Alignment')}
      {best.corrected && (
        <Text size="xs" data-testid="judge-corrected">
          Corrected pass rate {percent(best.corrected.value)} ({percent(best.corrected.low)} to {percent(best.corrected.high)})
        </Text>
      )}
    </Group>
  );
}

/**
 * Each judge of a run or a comparison with its trust badge (and, given counts, its corrected pass
 * rate). `judge` (and `version`) name the judge behind a run's evaluator id when they differ: a
 * server run's `exact` ran langevals/exact_match.
 */
export function JudgeTrustList({
  projectId,
  judges,
}: {
  projectId: string;
  judges: { evaluator: string; name: string; judge?: string; version?: number | null; counts?: { passed: number; judged: number } }[];
}) {
  if (!judges.length) return null;
  return (
    <div className="panel judge-trust-list" aria-label="Can the judges be trusted?" role="region">
      <Text size="sm" fw={600}>
        Can the judges be trusted?
      </Text>
      {judges.map((j) => (
        <Group key={j.evaluator} gap="xs" wrap="wrap">
          <Text size="sm">{j.name}</Text>
          <JudgeTrustBadge projectId={projectId} evaluator={j.judge ?? j.evaluator} version={j.version ?? undefined} counts={j.counts} />
        </Group>
      ))}
    </div>
  );
}

/**
 * The judge behind an alert rule's numbers (an evaluator's pass rate or score), as the rule's
 * answer carries it: its state and reason, a link to its alignment, and whether the rule holds back.
 */
export function RuleJudgeTrust({ projectId, rule }: { projectId: string; rule: { metric: { requireTrusted?: boolean }; judge: { evaluator: string; state: TrustState; reason: string; scoreConfig: string | null; holding: boolean } | null } }) {
  const j = rule.judge;
  if (!j) return null;
  return (
    <Group gap={6} wrap="wrap" data-testid="rule-judge-trust" data-state={j.state}>
      <Tooltip label={`${j.scoreConfig ? `Against ${j.scoreConfig}: ` : ''}${j.reason}`} multiline maw={320}>
        <Badge color={TRUST_COLOR[j.state]} variant="light" size="sm">
          judge {j.state}
        </Badge>
      </Tooltip>
      <Link to="/p/$projectId/evaluators/alignment" params={{ projectId }} search={{ evaluator: j.evaluator }} className="text-link-xs">
        Alignment
      </Link>
      {rule.metric.requireTrusted && (
        <Text size="xs" data-testid="rule-requires-trusted">
          {j.holding ? `Requires a trusted judge: held back (${j.reason}).` : 'Requires a trusted judge.'}
        </Text>
      )}
    </Group>
  );
}

/** The judge behind a run's evaluator, from the run's (or comparison's) `judges`. */
export function judgeOf(judges: { evaluator: string; judge: string; version: number | null }[], evaluator: string): { judge?: string; version?: number | null } {
  const j = judges.find((x) => x.evaluator === evaluator);
  return j ? { judge: j.judge, version: j.version } : {};
}

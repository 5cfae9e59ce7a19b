/** What the two evaluator pages (the catalogue's playground and a custom evaluator's editor) share: their heading, and a run's result. */
import { lazy, Suspense, type ReactNode } from 'react';
import { Alert, Badge, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { resultColor } from '../api/evaluators.ts';
import type { EvaluationResult } from '../api/evaluators.ts';
import { formatCost } from '../lib/format.ts';
import { Stat } from './Stat.tsx';

const JsonEditor = lazy(() => import('./JsonEditor.tsx'));

/** One evaluation's result: status, score, verdict, label, cost, details, error and raw response (the playground, a custom evaluator's "Try it"). */
export function EvaluationResultCard({ result: r }: { result: EvaluationResult }) {
  return (
    <Paper withBorder p="md" data-testid="evaluation-result">
      <Group gap="sm" mb="sm">
        <Title order={2} size="h5">
          Result
        </Title>
        <Badge color={resultColor(r)} variant="filled" tt="none">
          {r.status}
        </Badge>
      </Group>
      <div className="result-grid">
        <Stat label="Score" value={r.score === undefined ? '–' : String(Math.round(r.score * 10_000) / 10_000)} testId="result-score" />
        <Stat label="Passed" value={r.passed === undefined ? '–' : r.passed ? 'yes' : 'no'} />
        <Stat label="Label" value={r.label ?? '–'} />
        <Stat label="Cost" value={r.cost ? formatCost(r.cost.amount) : '–'} />
      </div>
      {r.details && (
        <>
          <Text size="sm" fw={600} mt="sm">
            Details
          </Text>
          <pre className="textblock">{r.details}</pre>
        </>
      )}
      {r.error_type && (
        <>
          <Text size="sm" fw={600} mt="sm" c="red.9">
            {r.error_type}
          </Text>
          {r.traceback && <pre className="stack">{r.traceback.join('\n')}</pre>}
        </>
      )}
      {r.raw_response && (
        <>
          <Text size="sm" fw={600} mt="sm" mb={4}>
            Raw response
          </Text>
          <Suspense fallback={<pre className="json-fallback">{JSON.stringify(r.raw_response, null, 2)}</pre>}>
            <JsonEditor text={JSON.stringify(r.raw_response, null, 2)} label="Raw response" maxHeight={360} />
          </Suspense>
        </>
      )}
    </Paper>
  );
}

/** Where a playground shows its run: the refusal, the result, or (before any run) `hint`. */
export function EvaluationOutcome({ run, hint }: { run: { isError: boolean; error: Error | null; data: EvaluationResult | undefined }; hint: string }) {
  return (
    <Stack gap="sm" aria-live="polite">
      {run.isError && (
        <Alert color="red" title="The request was refused">
          {run.error?.message}
        </Alert>
      )}
      {run.data && <EvaluationResultCard result={run.data} />}
      {!run.data && !run.isError && (
        <Text size="sm" className="muted">
          {hint}
        </Text>
      )}
    </Stack>
  );
}

/** An evaluator page's heading: the way back, its name and path, badges beside them, its description. */
export function EvaluatorHeading({ back, name, path, description, badges }: { back: ReactNode; name: string; path: string; description?: string | null; badges?: ReactNode }) {
  return (
    <div>
      {back}
      <Group gap="sm" mt={4}>
        <Title order={1} size="h3">
          {name}
        </Title>
        <Text className="mono muted" size="sm">
          {path}
        </Text>
        {badges}
      </Group>
      {description && (
        <Text size="sm" maw={900} mt={4}>
          {description}
        </Text>
      )}
    </div>
  );
}

import type { SpyglassModule } from '../../platform/module.ts';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { TraceExtension } from '../traces/index.ts';
import type { EvaluatorPorts, EvaluatorsContext } from './context.ts';
import { evaluationChipsByTrace, evaluationTraceCondition, verdictsRelation } from './trace-filter-store.ts';
import { deleteEvaluationsInsertedBefore, deleteTraceEvaluations, listTraceEvaluations } from './use-cases/read-results.ts';
import { customEvaluatorRoutes } from './custom/routes.ts';
import { evaluationRoutes } from './routes.ts';

/** What the evaluators module is given: models to judge with, privacy's redaction of stored results, the day a trace is kept in. */
export interface EvaluatorsModulePorts extends Pick<EvaluatorPorts, 'models'> {
  db: Database;
  clock: Clock;
  metrics: Metrics;
  privacy: { redactorFor(projectId: string, path: string): ReturnType<EvaluatorPorts['redactor']> };
  traces: Pick<EvaluatorPorts, 'traceDay'>;
}

/** The evaluators' context: its limits are the model gateway's own (one object). */
export function buildEvaluators({ privacy, traces, ...rest }: EvaluatorsModulePorts): EvaluatorsContext {
  return {
    ...rest,
    limits: rest.models.limits,
    redactor: (projectId, path) => privacy.redactorFor(projectId, path),
    traceDay: (db, projectId, traceId) => traces.traceDay(db, projectId, traceId),
  };
}

/** The evaluators module's one entry: the evaluation routes and the custom evaluators' routes. */
export const evaluatorsModule: SpyglassModule<{ evaluations: EvaluatorsContext }> = {
  name: 'evaluators',
  register: ({ http }, { evaluations }) => {
    evaluationRoutes(http, evaluations);
    customEvaluatorRoutes(http, evaluations);
  },
};

/** What evaluations add to traces: the detail's evaluations, the `evaluation` filter, the list's chips; they go with their traces. */
export function evaluationsTraceExtension(db: Database): TraceExtension {
  return {
    evaluations: (reader, projectId, traceId) => listTraceEvaluations(reader, projectId, traceId),
    filterConditions: { evaluation: evaluationTraceCondition },
    listFacts: async (reader, projectId, traceIds) => ({ evaluations: await evaluationChipsByTrace(reader, projectId, traceIds) }),
    onTracesDeleted: async (tx, projectId, traceIds) => void (await deleteTraceEvaluations(tx, projectId, traceIds)),
    verdicts: verdictsRelation,
    // Results are kept in their trace's day: a day dropped by retention takes them along.
    dayTables: ['evaluations'],
    // Evaluations whose trace never arrived (or came under another id) age out with the traces.
    sweepBefore: (projectId, cutoffMs) => deleteEvaluationsInsertedBefore(db, projectId, cutoffMs),
  };
}

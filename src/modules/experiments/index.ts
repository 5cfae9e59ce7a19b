export { buildExperiments, experimentsModule, type Experiments, type ExperimentsPorts } from './module.ts';
export type { ExperimentsContext } from './context.ts';
export {
  compareQuery,
  compareResponse,
  experimentListResponse,
  PLATFORM_SLUG_PARAMS,
  regressionsQuery,
  regressionsResponse,
  runListResponse,
  runParams,
  runsQuery,
  runStatusResponse,
  startRunBody,
  startRunResponse,
} from './schemas.ts';
export type { PlatformDeps, PlatformScope, EvaluatorForRuns, PromptForRuns } from './platform-context.ts';
export { TargetHeaders } from './target-headers.ts';
export { resealTargetHeaders, sealedTargetHeaders } from './reseal-headers.ts';
export { runTraceIds } from './run-traces.ts';
/** The seeded resampling other modules' statistics share (judge alignment), and the quantile and mean intervals (alerts). */
export { bootstrapMean, indexDrawer, normalMean, percentiles, quantile, RESAMPLES, seedOf, wilson, type Interval } from './statistics.ts';
/** An HTTP agent target's call (timeout, refusals and garbage as a reason): server-run simulations call agents through it too. */
export { callHttpAgent, type HttpAgentDeps, type HttpAgentTarget } from './http-target.ts';
export type { SealedHeaders } from './target-headers.ts';
export type { PreparedPrompt } from './platform-context.ts';
/** The paired statistics and verdict of comparing runs: simulations compare batches with them. */
export { minimumDetectableEffect, pairedDifference, sampleSd, verdictOf, MIN_PAIRED_ROWS, type Verdict } from './statistics.ts';
/** An experiment whose target is a judge (judge alignment's version comparisons): started, then read once it ended (Experiments offers both). */
export type { JudgeRunInput } from './judge-run.ts';
/** A judge's results on experiment rows with a trace: judge alignment pairs them with people's scores of those traces. */
export { judgeResultsOnRows, judgesOnRows } from './judged-rows.ts';

import type { ScoreMeansRelation } from '../traces/index.ts';
import type { Executor } from '../../db/index.ts';
import { badRequest } from '../../platform/errors.ts';
import { findScoreConfigs, scoreMeansByTrace, scoresOfTraces } from './score-store.ts';
import type { ScoreSummary } from './scores.schema.ts';
import { summarizeScores } from './score-summaries.ts';

/**
 * Per trace: its scores summed up per config (numeric: mean; boolean: share true; categorical:
 * counts per category; each with the latest value), for a page of traces in one query.
 */
export async function scoreSummariesByTrace(db: Executor, projectId: string, traceIds: string[]): Promise<Map<string, ScoreSummary[]>> {
  return summarizeScores((await scoresOfTraces(db, projectId, traceIds)).map((r) => ({ ...r, key: r.trace_id })));
}

/**
 * Trace search `sortByScore`: the config's mean per scored trace (boolean: the share true), as a
 * typed relation. A config that is missing or categorical is a 400 naming the field.
 */
export async function scoreMeans(db: Executor, projectId: string, configId: string, field: string): Promise<ScoreMeansRelation> {
  const [config] = await findScoreConfigs(db, projectId, [configId]);
  if (!config) throw badRequest('validation_error', `${field}: no score config ${JSON.stringify(configId)} in this project (GET /api/score-configs)`, field);
  if (config.kind === 'categorical') throw badRequest('validation_error', `${field}: ${JSON.stringify(config.name)} is categorical; sort by a numeric or boolean score`, field);
  return scoreMeansByTrace(projectId, configId);
}

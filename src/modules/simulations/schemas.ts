/**
 * The wire format of LangWatch's Scenario package (`@langwatch/scenario`, src/events/schema.ts,
 * and LangWatch's own server schemas): what POST /api/scenario-events accepts, and what the
 * simulations read routes answer.
 */
import { z } from 'zod';

/** Events per run past which a run's events are refused (a run of 100 turns sends a few hundred). */
export const MAX_EVENTS_PER_RUN = 10_000;
/** Messages in one snapshot (each snapshot carries the whole conversation): about 1,000 turns. */
export const MAX_MESSAGES = 2_000;
/** Characters of one message's text. */
export const MAX_MESSAGE_CHARS = 1_000_000;
/** A batch page lists at most this many runs per request. */
export const MAX_PAGE = 500;

export const RUN_STATUSES = ['SUCCESS', 'ERROR', 'CANCELLED', 'IN_PROGRESS', 'PENDING', 'FAILED', 'STALLED', 'QUEUED', 'RUNNING'] as const;
export const VERDICTS = ['success', 'failure', 'inconclusive'] as const;
/** Streamed pieces of a message: LangWatch broadcasts them to open pages and stores nothing; here they are acknowledged. */
export const STREAMING_EVENTS = [
  'SCENARIO_TEXT_MESSAGE_START',
  'SCENARIO_TEXT_MESSAGE_END',
  'SCENARIO_TEXT_MESSAGE_CONTENT',
  'SCENARIO_TOOL_CALL_START',
  'SCENARIO_TOOL_CALL_ARGS',
  'SCENARIO_TOOL_CALL_END',
] as const;

const id = z.string().min(1).max(256);

const base = z.object({
  timestamp: z.number().finite().nonnegative(),
  rawEvent: z.unknown().optional(),
  batchRunId: id,
  scenarioId: id,
  scenarioRunId: id,
  scenarioSetId: z
    .string()
    .max(256)
    .optional()
    .transform((v) => v || 'default'),
});

const results = z.object({
  verdict: z.enum(VERDICTS),
  reasoning: z.string().max(MAX_MESSAGE_CHARS).optional(),
  metCriteria: z.array(z.string().max(10_000)).max(1_000),
  unmetCriteria: z.array(z.string().max(10_000)).max(1_000),
  error: z.string().max(MAX_MESSAGE_CHARS).optional(),
});

const content = z.union([z.string().max(MAX_MESSAGE_CHARS), z.array(z.unknown()).max(1_000), z.null()]);

/** An AG-UI message (user, assistant with tool calls, tool, system, developer), with the trace it came from. */
export const simulationMessage = z
  .object({
    id: z.string().max(256).optional(),
    role: z.string().max(64),
    content: content.optional(),
    name: z.string().max(256).optional(),
    toolCalls: z
      .array(
        z
          .object({ id: z.string().max(256), type: z.string().max(64).optional(), function: z.object({ name: z.string().max(256), arguments: z.string().max(MAX_MESSAGE_CHARS) }).loose() })
          .loose(),
      )
      .max(1_000)
      .optional(),
    toolCallId: z.string().max(256).optional(),
    trace_id: z.string().max(256).optional(),
  })
  .loose();
export type SimulationMessage = z.infer<typeof simulationMessage>;

export const scenarioEvent = z.discriminatedUnion('type', [
  base.extend({
    type: z.literal('SCENARIO_RUN_STARTED'),
    metadata: z.object({ name: z.string().max(10_000).optional(), description: z.string().max(100_000).optional() }).loose(),
  }),
  base.extend({
    type: z.literal('SCENARIO_RUN_FINISHED'),
    status: z.enum(RUN_STATUSES),
    results: results.nullish(),
  }),
  base.extend({
    type: z.literal('SCENARIO_MESSAGE_SNAPSHOT'),
    messages: z.array(simulationMessage).max(MAX_MESSAGES),
  }),
  ...STREAMING_EVENTS.map((type) => base.extend({ type: z.literal(type) }).loose()),
]);
export type ScenarioEvent = z.infer<typeof scenarioEvent>;

export const eventAccepted = z.object({ success: z.boolean(), url: z.string().nullish() });

export const archiveQuery = z.object({ scenarioSetId: z.string().min(1, 'scenarioSetId query parameter is required').max(256) });
export const archiveResponse = z.object({ archived: z.number().int() });

const counts = {
  runs: z.number().int(),
  passed: z.number().int().describe('Runs whose verdict is success.'),
  failed: z.number().int().describe('Runs that finished with a failure verdict, an error or cancelled.'),
  inProgress: z.number().int(),
  passRate: z.number().nullable().describe('passed / finished runs; null while none has finished.'),
};

export const simulationSet = z.object({ scenarioSetId: z.string(), batches: z.number().int(), ...counts, lastRunAt: z.number() });
export const simulationSetsResponse = z.object({ sets: z.array(simulationSet) });

export const simulationBatch = z.object({ batchRunId: z.string(), scenarioSetId: z.string(), ...counts, startedAt: z.number(), finishedAt: z.number().nullable() });
export const simulationBatchesResponse = z.object({ batches: z.array(simulationBatch) });

const runSummaryShape = {
  scenarioRunId: z.string(),
  scenarioId: z.string(),
  scenarioSetId: z.string(),
  batchRunId: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  status: z.string(),
  results: results.extend({ reasoning: z.string().nullable(), error: z.string().nullable() }).nullable(),
  messageCount: z.number().int(),
  traceIds: z.array(z.string()),
  timestamp: z.number().describe('When the run started (ms).'),
  finishedAt: z.number().nullable(),
  durationMs: z.number().nullable(),
  updatedAt: z.number(),
};
export const simulationRunSummary = z.object(runSummaryShape);
export const simulationBatchRunsResponse = z.object({ batchRunId: z.string(), scenarioSetId: z.string().nullable(), runs: z.array(simulationRunSummary) });
export const simulationRun = z.object({ ...runSummaryShape, metadata: z.record(z.string(), z.unknown()), messages: z.array(z.unknown()) });

export const setParams = z.object({ scenarioSetId: z.string().min(1).max(256) });
export const batchParams = z.object({ batchRunId: z.string().min(1).max(256) });
export const runParams = z.object({ scenarioRunId: z.string().min(1).max(256) });

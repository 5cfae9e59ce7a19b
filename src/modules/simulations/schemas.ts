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

export const simulationBatch = z.object({
  batchRunId: z.string(),
  scenarioSetId: z.string(),
  label: z.string().nullable().describe('The agent version the batch was run with (a server run\'s label), or null'),
  ...counts,
  startedAt: z.number(),
  finishedAt: z.number().nullable(),
});
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

/* ---- Simulations the server runs ---- */

/** Turns (a user message and the agent's answer) a server-run scenario may take at most. */
export const MAX_TURNS = 50;
export const MAX_CRITERIA = 30;
/** Runs one batch may start (scenarios of the set × repeat): what one batch page lists. */
export const MAX_BATCH_RUNS = MAX_PAGE;
export const MAX_REPEAT = 20;
export const DEFAULT_SIMULATION_MODEL = 'openai/gpt-4o-mini';

const setName = z.string().trim().min(1).max(256);
const model = z.string().regex(/^[A-Za-z0-9_.-]+\/\S+$/, 'must be provider/model, e.g. openai/gpt-4o-mini').max(300);

const httpAgentTarget = z.object({
  type: z.literal('http'),
  url: z
    .string()
    .max(2000)
    .url()
    .refine((u) => /^https?:\/\//i.test(u), 'an http or https URL')
    .describe('POSTed {messages: [{role, content}], thread_id, scenario: {id, name}} each turn; answers JSON with the reply at output_field'),
  headers: z
    .record(z.string().min(1).max(200), z.string().max(8000))
    .optional()
    .describe('Sent with every call (e.g. Authorization); stored encrypted and answered masked. Not sent on a PUT: the stored headers stay; a masked value as GET answered it keeps the stored value'),
  output_field: z.string().min(1).max(200).default('output').describe("The answer's field holding the agent's reply (a dotted path); `.` for the whole answer"),
  timeout_ms: z.number().int().min(100).max(300_000).default(30_000),
});
const promptAgentTarget = z.object({
  type: z.literal('prompt'),
  prompt: z.string().min(1).max(300).describe('The prompt id or handle; its variables `input` (the last user message) and `conversation` (the transcript) are filled each turn'),
  version: z.number().int().min(1).optional().describe('A stored version; default: the newest when the batch starts'),
  model: model.optional().describe("provider/model instead of the version's model"),
});
export const agentTarget = z.discriminatedUnion('type', [httpAgentTarget, promptAgentTarget]);

export const scenarioBody = z.strictObject({
  name: z.string().trim().min(1).max(255),
  scenarioSetId: setName.default('default').describe('The set the scenario belongs to: `spyglass simulation run --set NAME` runs a set'),
  description: z.string().max(10_000).default(''),
  persona: z.string().trim().min(1).max(10_000).describe('Who the simulated user is'),
  goal: z.string().trim().min(1).max(10_000).describe('What the simulated user wants from the agent'),
  criteria: z.array(z.string().trim().min(1).max(2_000)).min(1).max(MAX_CRITERIA).describe('What the judge checks; the run succeeds when every criterion is met'),
  maxTurns: z.number().int().min(1).max(MAX_TURNS).default(10).describe(`Turns before the judge must decide (1..${MAX_TURNS})`),
  target: agentTarget,
});
export type ScenarioBody = z.output<typeof scenarioBody>;

const targetView = z.discriminatedUnion('type', [httpAgentTarget.extend({ headers: z.record(z.string(), z.string()).optional() }), promptAgentTarget]);
export const scenarioView = z.object({
  id: z.string(),
  name: z.string(),
  scenarioSetId: z.string(),
  description: z.string(),
  persona: z.string(),
  goal: z.string(),
  criteria: z.array(z.string()),
  maxTurns: z.number().int(),
  target: targetView,
  createdAt: z.number(),
  updatedAt: z.number(),
});
export const scenarioListQuery = z.object({ scenarioSetId: setName.optional() });
export const scenarioListResponse = z.object({ scenarios: z.array(scenarioView) });
export const scenarioParams = z.object({ scenarioId: z.string().min(1).max(256) });
export const deletedResponse = z.object({ deleted: z.boolean() });

export const runSetBody = z
  .strictObject({
    repeat: z.number().int().min(1).max(MAX_REPEAT).default(1).describe('Runs of each scenario in the batch: a scenario run several times gives a pass rate'),
    userModel: model.default(DEFAULT_SIMULATION_MODEL).describe('provider/model playing the user'),
    judgeModel: model.default(DEFAULT_SIMULATION_MODEL).describe('provider/model judging the conversation against the criteria'),
    label: z.string().trim().min(1).max(200).optional().describe('The agent version this batch tests (shown beside the batch, used when comparing)'),
  })
  .default({ repeat: 1, userModel: DEFAULT_SIMULATION_MODEL, judgeModel: DEFAULT_SIMULATION_MODEL });
export type RunSetBody = z.output<typeof runSetBody>;
export const runSetResponse = z.object({
  batchRunId: z.string(),
  scenarioSetId: z.string(),
  runs: z.array(z.object({ scenarioRunId: z.string(), scenarioId: z.string(), name: z.string() })),
  batchUrl: z.string(),
});

export const compareQuery = z.object({
  baseline: z.string().min(1).max(256).describe('A batch of the set: the agent version compared against'),
  candidate: z.string().min(1).max(256).describe('Another batch of the same set'),
});
const rate = z.object({ runs: z.number().int(), passed: z.number().int(), passRate: z.number().nullable(), interval: z.object({ low: z.number(), high: z.number() }).nullable() });
export const compareResponse = z.object({
  scenarioSetId: z.string(),
  baseline: z.object({ batchRunId: z.string(), label: z.string().nullable() }),
  candidate: z.object({ batchRunId: z.string(), label: z.string().nullable() }),
  overall: z.object({
    baseline: rate,
    candidate: rate,
    pairedScenarios: z.number().int().describe('Scenarios run in both batches: the pairs the difference is measured on'),
    difference: z.number().nullable().describe('candidate − baseline pass rate, the mean over paired scenarios'),
    interval: z.object({ low: z.number(), high: z.number() }).nullable(),
    pValue: z.number().nullable(),
    verdict: z.enum(['better', 'worse', 'no detectable difference', 'not enough data']),
    minimumDetectableEffect: z.number().nullable(),
    summary: z.string().describe('The verdict in words'),
  }),
  scenarios: z.array(
    z.object({
      scenarioId: z.string(),
      name: z.string().nullable(),
      baseline: rate.nullable(),
      candidate: rate.nullable(),
      difference: z.number().nullable(),
    }),
  ),
});

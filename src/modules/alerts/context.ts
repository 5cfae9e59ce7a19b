import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Mailer } from '../../platform/mail.ts';
import type { GroupSums, PeriodQuery, WindowsQuery } from '../analytics/index.ts';
import type { TraceValueColumn } from '../traces/index.ts';

/** Whether a judge can be trusted (the judge-alignment module's answer, against the score config with most labels). */
export interface JudgeTrust {
  state: 'trusted' | 'not trusted' | 'not enough labels';
  reason: string;
  /** the human score config it was measured against; null when people labelled none of its traces */
  scoreConfig: string | null;
}

/** What the alerts use cases work with: the database, the clock, and other modules' answers (wired by module.ts). */
export interface AlertsContext {
  db: Database;
  clock: Clock;
  /** Sums per segment over a period (every segment): traces, errors, cost, tokens, thumbs. */
  periodSums(projectId: string, q: PeriodQuery): Promise<GroupSums[]>;
  /** One value per trace over a period with its segment: latency, first-token time, cost or tokens. */
  periodValues(projectId: string, q: PeriodQuery & { column: TraceValueColumn; limit: number }): Promise<{ g: string | null; v: number }[]>;
  /** Evaluation results over a period, by a trace segment or by evaluation name. */
  periodEvaluations(
    projectId: string,
    q: Omit<PeriodQuery, 'groupBy'> & { groupBy: PeriodQuery['groupBy'] | 'evaluator'; evaluator: string | null; limit: number },
  ): Promise<{ g: string | null; status: string; passed: boolean | null; score: number | null }[]>;
  /** Rules' reads, many windows in one statement per source (analytics' window* functions): sums, per-trace values, evaluation results, review scores. */
  windowSums(projectId: string, q: WindowsQuery): Promise<(GroupSums & { window: number })[]>;
  windowValues(projectId: string, q: WindowsQuery & { column: TraceValueColumn }): Promise<{ window: number; g: string | null; values: number[] }[]>;
  windowEvaluations(
    projectId: string,
    q: Omit<WindowsQuery, 'groupBy'> & { groupBy: PeriodQuery['groupBy'] | 'evaluator'; evaluator: string | null },
  ): Promise<{ window: number; g: string | null; ran: number; errors: number; verdicts: number; passed: number; scores: number[] }[]>;
  windowScores(
    projectId: string,
    q: Omit<WindowsQuery, 'groupBy'> & { configId: string; category: string | null },
  ): Promise<{ window: number; kind: string; count: number; total: number; inCategory: number; traceMeans: number[] }[]>;
  /** Thread monitors' results per window of when they ran (the threads module's), per evaluation name when split by evaluator. */
  windowThreadEvaluations(
    projectId: string,
    q: { origin: number; windowMs: number; end: number; name: string | null; byName: boolean },
  ): Promise<{ window: number; g: string | null; ran: number; errors: number; verdicts: number; passed: number; scores: number[] }[]>;
  /** Whether a thread monitor of this name (or evaluator path) left results in the project. */
  threadEvaluatorKnown(projectId: string, nameOrPath: string): Promise<boolean>;
  /** A score config of the project, or null. */
  scoreConfig(projectId: string, id: string): Promise<{ kind: 'numeric' | 'boolean' | 'categorical'; categories: string[] } | null>;
  /** Whether an evaluation of this name (a monitor's) or evaluator path can give the project verdicts. */
  evaluatorKnown(projectId: string, nameOrPath: string): Promise<boolean>;
  /** Whether the judge behind an evaluation name (a monitor's) or evaluator path can be trusted. */
  judgeTrust(projectId: string, nameOrPath: string): Promise<JudgeTrust>;
  /** Where links in messages point (SPYGLASS_PUBLIC_URL); null: links relative to the app. */
  publicUrl: string | null;
  /** The server's SMTP mailer (SMTP_URL); null: e-mail channels cannot be made. */
  mailer: Mailer | null;
  /** POSTs JSON to a receiver under the webhook policy for private addresses; never throws. */
  postJson(url: string, body: unknown): Promise<{ error: string | null }>;
  /** Checks a receiver URL when a channel is saved (the webhook policy); throws a message why not. */
  checkDestination(url: string): Promise<void>;
}

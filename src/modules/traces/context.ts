import type { ProjectHold } from './store.ts';
import type { Database, Executor } from '../../db/index.ts';
import type { DayPartitions } from '../../db/day-partitions.ts';
import type { Clock } from '../../platform/clock.ts';
import type { ForeignFilterConditions } from './filter-store.ts';
import type { ScoreMeansRelation, ThumbsRelation, VerdictsRelation } from './relations.ts';
import type { AnnotationCounts, EvaluationChip, TraceScoreSummary } from './schemas.ts';
import type { TraceSummary } from './summary.ts';

/** What other modules add to traces: evaluations on the detail, search filters, work done with each ingest. */
export interface TraceExtension {
  /** A trace's evaluations for its detail, read through `db` (a replica when the detail reads one). */
  evaluations?(db: Executor, projectId: string, traceId: string): Promise<Record<string, unknown>[]>;
  /** SQL conditions on `traces` rows for the filter keys other modules own (annotations, evaluations). */
  filterConditions?: ForeignFilterConditions;
  /** Runs inside the ingest transaction (e.g. enqueue monitor jobs): durable exactly when the spans are. */
  beforeCommit?(tx: Executor, batch: { organizationId: string; projectId: string; summaries: TraceSummary[]; now: Date }): Promise<void>;
  /**
   * The search's `sortByScore`: the config's mean per scored trace, as the owner's typed relation
   * (a 400 naming `field` when the config cannot sort).
   */
  scoreSort?(projectId: string, configId: string, field: string): Promise<ScoreMeansRelation>;
  /** What the traces list shows of other modules' data, for a page of traces (one query each, not one per trace), read through `db` where the page was. */
  listFacts?(db: Executor, projectId: string, traceIds: string[]): Promise<ListFacts>;
  /** The project's thumbs as the owner's typed relation: what the hourly rollups count per hour (the charts join the same). */
  thumbs?: (projectId: string) => ThumbsRelation;
  /** The project's evaluations that gave a verdict as the owner's typed relation: what the hourly rollups count per hour. */
  verdicts?: (projectId: string) => VerdictsRelation;
  /** Runs in the transaction that deletes traces (retention): remove what belongs to them. */
  onTracesDeleted?(tx: Executor, projectId: string, traceIds: string[]): Promise<void>;
  /**
   * The module's tables partitioned by their trace's day (db/day-partitions.ts, like spans):
   * their partitions are made and dropped with the traces' days, so a day dropped by retention
   * takes their rows along, and onTracesDeleted is not called for it (it still is for traces
   * deleted row by row).
   */
  dayTables?: readonly string[];
  /**
   * Runs in the retention sweep for each project with a retention period, after its old
   * traces went: remove what the project stored before `cutoffMs` that no trace took with it
   * (e.g. evaluations of traces that never arrived).
   */
  sweepBefore?(projectId: string, cutoffMs: number): Promise<unknown>;
  /** Privacy at ingest: the project's redaction as it is now (`path` names the ingest path in /metrics). */
  redactor?(projectId: string, path: string): Promise<ValueRedactor>;
  /** The search's text as the project stores values (privacy's hash mode: a typed value becomes its token). */
  searchText?(projectId: string, query: string): Promise<string>;
  /** What privacy at ingest removed from a trace, from its spans' records (null: nothing). */
  redactionRecord?(counts: Record<string, Record<string, number>>[]): Record<string, unknown> | null;
}

/**
 * What the privacy module gives ingest: one project's redaction, for one request. Every
 * string an application sent goes through it before anything is written.
 */
export interface ValueRedactor {
  /** Whether it changes or counts anything (privacy off: no). */
  readonly active: boolean;
  text(text: string, field: string): string;
  value<T>(value: T, field: string): T;
  /** Values found since the last call, per field and entity type (no values). */
  take(): Record<string, Record<string, number>>;
  /**
   * Runs `pass` (the calls that will redact, their results ignored) and searches the texts
   * they name ahead, all at once off the main thread; the same calls after it are quick.
   */
  prepare?(pass: () => void): Promise<void>;
}

/** Per trace id: its evaluations in brief, its annotations counted, its scores summed up. */
export interface ListFacts {
  evaluations?: Map<string, EvaluationChip[]>;
  annotations?: Map<string, AnnotationCounts>;
  scores?: Map<string, TraceScoreSummary[]>;
}

/** What traces need from the organizations module, which owns projects. */
export interface ProjectRegistry {
  /** Which projects keep traces for how many days. */
  retentionPolicies(): Promise<{ projectId: string; days: number }[]>;
  /** The project's row (id), share-locked for the transaction (it cannot be deleted under an ingest), as the organizations module's typed relation. */
  holdProject(projectId: string): ProjectHold;
  /** Runs `listener` in the transaction that deletes a project (its traces go with it). */
  onProjectDeleted(listener: (tx: Executor, projectId: string) => Promise<void>): void;
}

/** What the traces module's use cases (ingest, reads, search, shares, retention) work with. */
export interface TraceContext {
  db: Database;
  /** The day partitions of spans, traces and the extensions' dayTables (made ahead, and before an ingest transaction needs them). */
  days: DayPartitions;
  clock: Clock;
  projects: ProjectRegistry;
  /** Each module's additions (TracesPorts.extensions), read by every use case. */
  extensions: TraceExtension[];
}

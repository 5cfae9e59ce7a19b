/**
 * Other modules' rows as the traces module joins them: typed drizzle subqueries their owners
 * build in their own stores (annotations' thumbs and scores, evaluators' verdicts and results,
 * topics), so the traces module's statements (aggregates-store.ts, rollup-store.ts, search)
 * join them by typed columns, never by table names in SQL text.
 */
import type { SQLWrapper, Subquery } from 'drizzle-orm';

/** A column of another module's relation, typed by the values it holds (nullable or not). */
export type RelationColumn<T> = SQLWrapper & { readonly _: { readonly data: T } };

/**
 * Another module's rows as a typed drizzle subquery (`select({...}).from(ownTable).where(project).as(alias)`),
 * built in the owner's store: this module joins it by its columns, never by names in SQL text.
 */
export type Relation<Columns extends Record<string, RelationColumn<unknown>>> = Subquery & Columns;

/** A project's thumbs: one row per annotation. */
export type ThumbsRelation = Relation<{ traceId: RelationColumn<string>; isThumbsUp: RelationColumn<boolean> }>;
/** A project's evaluations that gave a verdict. */
export type VerdictsRelation = Relation<{ traceId: RelationColumn<string>; name: RelationColumn<string>; evaluator: RelationColumn<string>; passed: RelationColumn<boolean> }>;
/** A project's evaluation results that ran (processed or error). */
export type EvaluationResultsRelation = Relation<{
  traceId: RelationColumn<string>;
  name: RelationColumn<string>;
  evaluator: RelationColumn<string>;
  status: RelationColumn<string>;
  passed: RelationColumn<boolean>;
  score: RelationColumn<number>;
}>;
/** A project's review scores of traces, with their config's name and kind. */
export type ScoresRelation = Relation<{
  traceId: RelationColumn<string>;
  configId: RelationColumn<string>;
  name: RelationColumn<string>;
  kind: RelationColumn<string>;
  numberValue: RelationColumn<number>;
  textValue: RelationColumn<string>;
}>;
/** One score config's mean per scored trace (the annotations module's): what the trace search sorts by. */
export type ScoreMeansRelation = Subquery & { traceId: SQLWrapper; mean: SQLWrapper };
/** A project's traces with their topic (at most one row per trace; topic null: not in any). */
export type TopicsRelation = Relation<{ traceId: RelationColumn<string>; topicId: RelationColumn<string> }>;

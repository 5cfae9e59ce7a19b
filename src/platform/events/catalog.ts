/**
 * Every subscribable webhook event type. `isEmitting` turns true in the commit that adds
 * the type's producer (a test checks that every emitting type is really emitted).
 */
export interface EventTypeDefinition {
  type: string;
  family: string;
  schemaVersion: string;
  isEmitting: boolean;
  description: string;
}

const t = (type: string, isEmitting: boolean, description: string): EventTypeDefinition => ({
  type,
  family: type.split('.')[0],
  schemaVersion: '1',
  isEmitting,
  description,
});

export const EVENT_TYPES = [
  t('trace.created', true, 'A trace was seen for the first time (its first spans were committed).'),
  t('trace.shared', true, 'A trace was published under a public path.'),
  t('trace.unshared', true, "A trace's public path was withdrawn."),
  t('annotation.created', true, 'An annotation was added to a trace.'),
  t('annotation.updated', true, 'An annotation was changed.'),
  t('annotation.deleted', true, 'An annotation was deleted.'),
  t('score.created', true, "A score was given to a trace: one per score of an annotation (a reviewer completing a queue item, or POST /api/annotations/trace/{id} with scores)."),
  t('queue_item.completed', true, 'A reviewer completed an item of an annotation queue (its annotation and scores are in annotation.created and score.created).'),
  t('prompt.created', true, 'A prompt was created (with its version 1).'),
  t('prompt.version_created', true, 'A new version of a prompt was saved (update or restore).'),
  t('prompt.deleted', true, 'A prompt was deleted.'),
  t('dataset.created', true, 'A dataset was created (empty, or from an uploaded file).'),
  t('dataset.updated', true, "A dataset's name or columns changed, or its records did (a new version)."),
  t('dataset.deleted', true, 'A dataset was archived (DELETE): it left every listing and lookup.'),
  t('evaluation.completed', true, 'An evaluation finished with status processed or skipped.'),
  t('evaluation.failed', true, 'An evaluation finished with status error.'),
  t('guardrail.triggered', true, 'An evaluation run as a guardrail did not pass: the guarded call should not proceed.'),
  t('custom_evaluator.created', true, 'A custom evaluator was created (with its version 1).'),
  t('custom_evaluator.version_created', true, 'A new version of a custom evaluator was saved.'),
  t('custom_evaluator.deleted', true, 'A custom evaluator was deleted with its versions.'),
  t('model_provider.created', true, 'A model provider was set in the app (its key is never in the event).'),
  t('model_provider.deleted', true, 'A model provider was removed.'),
  t('api_key.created', true, 'An API key was minted.'),
  t('api_key.revoked', true, 'An API key was revoked.'),
  t('experiment_run.started', true, 'An experiment run began: logged for the first time (its first accepted results post), or started on the platform (POST /api/experiments/{slug}/run).'),
  t('experiment_run.finished', true, 'An experiment run ended: marked finished or stopped (its first finished_at or stopped_at), or a platform run completed or was stopped.'),
  t('alert.firing', true, "An alert rule's segment began firing: what changed, by how much, against what, since when, and a link to the traces (one event per change of state)."),
  t('alert.resolved', true, 'A firing alert rule segment resolved: calm for the windows the rule asks.'),
  t('alert.report', true, "A project's daily or weekly report: volume, errors, cost, latency, each evaluator's pass rate and mean score, what changed against the previous period, the alerts that fired."),
] as const satisfies readonly EventTypeDefinition[];

export type EventType = (typeof EVENT_TYPES)[number]['type'];

export function eventDefinition(type: string): EventTypeDefinition | undefined {
  return EVENT_TYPES.find((e) => e.type === type);
}

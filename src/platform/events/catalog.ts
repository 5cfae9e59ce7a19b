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
  t('trace.created', false, 'A trace was seen for the first time (its first spans were committed).'),
  t('trace.shared', false, 'A trace was published under a public path.'),
  t('trace.unshared', false, "A trace's public path was withdrawn."),
  t('annotation.created', false, 'An annotation was added to a trace.'),
  t('annotation.updated', false, 'An annotation was changed.'),
  t('annotation.deleted', false, 'An annotation was deleted.'),
  t('prompt.created', false, 'A prompt was created (with its version 1).'),
  t('prompt.version_created', false, 'A new version of a prompt was saved (update or restore).'),
  t('prompt.deleted', false, 'A prompt was deleted.'),
  t('evaluation.completed', false, 'An evaluation finished with status processed or skipped.'),
  t('evaluation.failed', false, 'An evaluation finished with status error.'),
  t('guardrail.triggered', false, 'An evaluation run as a guardrail did not pass: the guarded call should not proceed.'),
  t('api_key.created', false, 'An API key was minted.'),
  t('api_key.revoked', false, 'An API key was revoked.'),
] as const satisfies readonly EventTypeDefinition[];

export type EventType = (typeof EVENT_TYPES)[number]['type'];

export function eventDefinition(type: string): EventTypeDefinition | undefined {
  return EVENT_TYPES.find((e) => e.type === type);
}

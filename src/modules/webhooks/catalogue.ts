// The catalogue alone (no database code): the web app's types read these schemas too.
import { EVENT_TYPES } from '../../platform/events/catalog.ts';

/** What an endpoint may subscribe to: an exact type, `family.*`, or `*`. */
export function isSubscription(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return EVENT_TYPES.some((e) => e.family === pattern.slice(0, -2));
  return EVENT_TYPES.some((e) => e.type === pattern);
}

export function subscribes(enabledEvents: readonly string[], type: string): boolean {
  const family = type.split('.')[0];
  return enabledEvents.some((p) => p === '*' || p === type || p === `${family}.*`);
}

export interface EventTypeView {
  type: string;
  family: string;
  schema_version: string;
  is_emitting: boolean;
  description: string;
}

/** The catalogue, grouped by family (families in first-appearance order, types as declared). */
export function eventTypeCatalogue(): EventTypeView[] {
  const families = [...new Set(EVENT_TYPES.map((e) => e.family))];
  return families.flatMap((family) =>
    EVENT_TYPES.filter((e) => e.family === family).map((e) => ({
      type: e.type,
      family: e.family,
      schema_version: e.schemaVersion,
      is_emitting: e.isEmitting,
      description: e.description,
    })),
  );
}

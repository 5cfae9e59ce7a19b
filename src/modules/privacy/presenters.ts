import type { z } from 'zod';
import { DEFAULT_ENTITIES, type privacySettingsResponse, type redactionRecordSchema } from './schemas.ts';
import { describeCounts, type RedactionCounts } from './redaction.ts';
import type { PrivacySettingsRow } from './store.ts';

export type PrivacySettingsView = z.output<typeof privacySettingsResponse>;
export type RedactionRecordView = z.output<typeof redactionRecordSchema>;

export function presentSettings(row: PrivacySettingsRow | null): PrivacySettingsView {
  if (!row) {
    return { mode: 'off', entities: DEFAULT_ENTITIES, untouched_keys: [], patterns: [], updated_at: null, applies_to: 'Privacy is off: data is stored as it arrives.' };
  }
  return {
    mode: row.mode,
    entities: row.entities,
    untouched_keys: row.untouchedKeys,
    patterns: row.patterns,
    updated_at: row.updatedAt.toISOString(),
    applies_to: `Data arriving from ${row.updatedAt.toISOString()} on; what was stored before stays as it was.`,
  };
}

/** A trace's record, or null when nothing was removed from it. */
export function presentRecord(counts: RedactionCounts): RedactionRecordView | null {
  const { total, summary } = describeCounts(counts);
  if (total === 0) return null;
  const list = Object.entries(counts).flatMap(([field, byType]) => Object.entries(byType).map(([entity_type, count]) => ({ field, entity_type, count })));
  return { total, summary, counts: list.sort((a, b) => b.count - a.count || a.field.localeCompare(b.field) || a.entity_type.localeCompare(b.entity_type)) };
}

import type { z } from 'zod';
import type { attemptSchema, endpointSchema } from './schemas.ts';
import type { AttemptRow, EndpointRow } from './store.ts';

/** The answers' types come from their schemas: a field a schema gains and a presenter forgets fails to compile. */
export type EndpointView = z.output<typeof endpointSchema>;
export type AttemptView = z.output<typeof attemptSchema>;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A webhook endpoint as the API answers it (`endpointSchema`). */
export function presentEndpoint(row: EndpointRow): EndpointView {
  return {
    id: row.id,
    project_id: row.projectId,
    url: row.url,
    description: row.description,
    enabled_events: row.enabledEvents,
    max_batch_size: row.maxBatchSize,
    max_batch_delay_ms: row.maxBatchDelayMs,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    disabled_at: iso(row.disabledAt),
    receives_organization_events: row.receivesOrganizationEvents,
    failing_since: iso(row.failingSince),
    last_success_at: iso(row.lastSuccessAt),
    previous_secret_expires_at: iso(row.previousSecretExpiresAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A delivery attempt as the deliveries log answers it (`attemptSchema`). */
export function presentAttempt(row: AttemptRow): AttemptView {
  return {
    id: row.id,
    dispatch_id: row.dispatchId,
    attempt: row.attempt,
    event_count: row.eventCount,
    response_status: row.responseStatus,
    latency_ms: row.latencyMs,
    error: row.error,
    fired_at: row.firedAt.toISOString(),
    outcome: row.outcome,
    next_attempt_at: iso(row.nextAttemptAt),
  };
}

import type { z } from 'zod';
import type { BackfillView, monitorSchema } from './schemas.ts';
import type { BackfillRow, MonitorRow } from './store.ts';

/** A monitor as the API answers it (`monitorSchema`): the row without its organization. */
export function presentMonitor(r: MonitorRow): z.output<typeof monitorSchema> {
  const { organization_id: _org, ...rest } = r;
  return rest;
}

/** A run over past traces as the API answers it (`BackfillView`): its request's range, and progress. */
export function presentBackfill(b: BackfillRow): BackfillView {
  return {
    id: b.id,
    monitor_id: b.monitor_id,
    state: b.state,
    start_date: b.request.startDate,
    end_date: b.request.endDate,
    total: b.total,
    done: b.position,
    evaluated: b.evaluated,
    skipped: b.skipped,
    failed: b.failed,
    error: b.error,
    created_at: b.created_at,
    updated_at: b.updated_at,
  };
}

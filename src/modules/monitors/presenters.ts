import type { z } from 'zod';
import type { monitorSchema } from './schemas.ts';
import type { MonitorRow } from './store.ts';

/** A monitor as the API answers it (`monitorSchema`): the row without its organization. */
export function presentMonitor(r: MonitorRow): z.output<typeof monitorSchema> {
  const { organization_id: _org, ...rest } = r;
  return rest;
}

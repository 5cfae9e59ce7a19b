import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { TimeseriesRequest, TimeseriesResponse } from '../analytics/schemas.ts';

/** What the dashboards use cases work with: the database, the clock, and the analytics series (wired by app.ts). */
export interface DashboardsContext {
  db: Database;
  clock: Clock;
  /** POST /api/analytics/timeseries of a project: every chart reads exactly this. */
  series(projectId: string, request: TimeseriesRequest): Promise<TimeseriesResponse>;
}

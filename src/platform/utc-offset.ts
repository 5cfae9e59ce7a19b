import { z } from 'zod';

/** The widest offsets of real time zones (UTC-12 .. UTC+14), in minutes. */
export const MAX_UTC_OFFSET_MINUTES = 840;
const DESCRIPTION =
  "Minutes the reader's time zone is ahead of UTC (60 for UTC+1, -300 for UTC-5): days and weeks start at its midnight. Default 0: UTC";

/**
 * The reader's time zone as minutes ahead of UTC, for time series whose days and weeks start at
 * the reader's midnight (a file of its own: the web app imports it, without the SQL of
 * time-buckets.ts). In a JSON body; `utcOffsetMinutesQuery` in a query string (text, coerced).
 */
export const utcOffsetMinutes = z.number().int().min(-MAX_UTC_OFFSET_MINUTES).max(MAX_UTC_OFFSET_MINUTES).default(0).describe(DESCRIPTION);
export const utcOffsetMinutesQuery = z.coerce.number().int().min(-MAX_UTC_OFFSET_MINUTES).max(MAX_UTC_OFFSET_MINUTES).default(0).describe(DESCRIPTION);

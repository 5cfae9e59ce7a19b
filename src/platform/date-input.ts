import { z } from 'zod';

const epochMsInput = z.number().int().nonnegative();
const isoInput = z.iso.datetime({ offset: true });

/** A date a request may send: epoch milliseconds or ISO 8601 with an offset (the web app type-checks it too). */
export const dateInput = z.union([epochMsInput, isoInput]);

/** The same in a query string, where epoch milliseconds arrive as digits. */
export const dateQueryInput = z.union([z.string().regex(/^\d{1,15}$/).transform(Number), epochMsInput, isoInput]);

/** Epoch ms of a date sent as epoch ms or ISO 8601 (NaN when it is neither: time-buckets' toMillis answers 400). */
export function epochMs(v: number | string): number {
  return typeof v === 'number' ? v : Date.parse(v);
}

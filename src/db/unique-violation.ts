/**
 * Whether a statement failed with this SQLSTATE, on either driver: the code is on the error or
 * on one of its causes (drizzle wraps the driver's error).
 */
export function hasSqlState(err: unknown, code: string): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === code) return true;
  }
  return false;
}

/** Whether a write was refused by a unique index (SQLSTATE 23505). */
export const isUniqueViolation = (err: unknown): boolean => hasSqlState(err, '23505');

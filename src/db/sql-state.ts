/**
 * Whether a database error carries one of these SQLSTATEs, on either driver: the code is on the
 * error or on one of its causes (drizzle wraps the driver's error).
 */
export function hasSqlState(err: unknown, codes: readonly string[]): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (codes.includes((e as { code?: unknown }).code as string)) return true;
  }
  return false;
}

/** Whether a write was refused by a unique index (SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  return hasSqlState(err, ['23505']);
}

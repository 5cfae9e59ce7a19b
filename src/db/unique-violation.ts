/**
 * Whether a write was refused by a unique index (SQLSTATE 23505), on either driver: the code is
 * on the error or on one of its causes (drizzle wraps the driver's error).
 */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

/**
 * A value as one JSON text parameter (for json_to_recordset and friends). PostgreSQL text
 * and jsonb cannot hold U+0000 nor a lone UTF-16 surrogate, and one in a span would fail the
 * whole statement, so they are sent as U+FFFD (the replacement character) instead.
 * Its own file, without the database drivers: the OTLP decode worker makes span rows with it.
 */
export function jsonParam(value: unknown): string {
  return storableJson(JSON.stringify(value));
}

/** JSON text (as JSON.stringify writes it) with U+0000 and lone surrogates sent as U+FFFD: see jsonParam. */
export function storableJson(text: string): string {
  // JSON.stringify writes NUL as "\u0000" and a lone surrogate as "\udxxx" (paired ones as
  // themselves); an escape is one preceded by an even number of backslashes (an odd number
  // escapes the backslash itself).
  return text.includes('\\u') ? text.replace(/(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi, '$1\\ufffd') : text;
}

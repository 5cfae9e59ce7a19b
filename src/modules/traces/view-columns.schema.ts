/**
 * The traces list's columns, shared by the saved-views schema (server) and the list (web
 * app, at run time): plain TypeScript, no imports. Besides these, `meta:<key>` shows a
 * metadata key, `eval:<name>` an evaluation's score and `score:<score config id>` a review score.
 */
export const BUILTIN_COLUMNS = ['time', 'trace_id', 'input', 'output', 'user', 'thread', 'customer', 'labels', 'models', 'tokens', 'cost', 'latency', 'error', 'evaluations', 'notes'] as const;
export type BuiltinColumn = (typeof BUILTIN_COLUMNS)[number];

/** What the list shows when a view names no columns. */
export const DEFAULT_COLUMNS: readonly BuiltinColumn[] = ['time', 'input', 'output', 'user', 'labels', 'models', 'tokens', 'cost', 'latency', 'error', 'evaluations', 'notes'];

export const isColumn = (c: string): boolean => (BUILTIN_COLUMNS as readonly string[]).includes(c) || /^(meta|eval|score):.{1,200}$/s.test(c);

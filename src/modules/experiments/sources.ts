import { getPath } from './http-target.ts';

// Where a target's input or an evaluator's field comes from: checked when an experiment is
// defined (define-experiment.ts), read for each row when it runs (run-cells.ts).

/** The prefix of a source that is its own value. */
export const CONSTANT = 'constant:';

/** `dataset.<column>` from the row, `target.output[.<path>]` from the target's output, `constant:<text>` the text. */
export function resolveSource(source: string, entry: Record<string, unknown>, output: unknown): unknown {
  if (source.startsWith('dataset.')) return entry[source.slice('dataset.'.length)] ?? null;
  if (source.startsWith(CONSTANT)) return source.slice(CONSTANT.length);
  if (source === 'target.output') return output;
  if (source.startsWith('target.output.')) return getPath(output, source.slice('target.output.'.length)) ?? null;
  return null;
}

import * as z from 'zod/mini';
import { listSearchSchema } from './list-search.ts';
import { matching, oneOf, wholeNumber, words } from './search.ts';

// The URL search of each page that keeps its state in the address: the router validates with
// these schemas, and each page reads its search by these types (so no page imports the router).

export const usersSearch = z.object({
  q: words(),
  sort: oneOf(['user_id', 'traces', 'cost', 'tokens', 'errors', 'thumbs_up', 'thumbs_down', 'first_seen', 'last_seen']),
  dir: oneOf(['asc', 'desc']),
  /** The first page is the one without `page`. */
  page: wholeNumber(2),
});
export type UsersSearch = z.output<typeof usersSearch>;

const THREAD_COLUMNS = ['thread_id', 'turns', 'cost', 'duration', 'errors', 'users', 'first_seen', 'last_seen'];
type ThreadSort = 'thread_id' | 'turns' | 'cost' | 'duration' | 'errors' | 'users' | 'first_seen' | 'last_seen' | `score:${string}` | `eval:${string}`;

/** The threads list: the traces list's filters (a thread is listed when any of its traces matches), its own sort and page. */
export const threadsSearch = z.extend(listSearchSchema, {
  /** A column, `score:<config id>` (a numeric or boolean review score's mean) or `eval:<thread monitor name>` (its newest result) */
  tsort: matching<ThreadSort>((v) => THREAD_COLUMNS.includes(v) || /^score:.{1,128}$/.test(v) || /^eval:.{1,200}$/.test(v)),
  /** A thread monitor's newest result (parseThreadEvaluationFilter): `<any|pass|fail|error>:<monitor name>` */
  teval: words(),
  /** A review score of the thread (parseScoreFilter): `<config id>:<min>..<max>` or `<config id>:=<value>` */
  tscore: words(),
  /** Part of the thread id. */
  tid: words(),
  /** The first page is the one without `page`. */
  page: wholeNumber(2),
});
export type ThreadsSearch = z.output<typeof threadsSearch>;

export const topicsSearch = z.object({ range: oneOf(['24h', '30d']) });
export type TopicsSearch = z.output<typeof topicsSearch>;

export const promptSearch = z.object({
  tab: oneOf(['edit', 'history', 'preview', 'code']),
  /** The two versions the history compares. */
  a: wholeNumber(1),
  b: wholeNumber(1),
});
export type PromptSearch = z.output<typeof promptSearch>;

export const datasetSearch = z.object({
  /** View the dataset as of this version (read-only). */
  version: wholeNumber(0),
  /** Only rows containing this text. */
  q: words(),
  /** Rows just uploaded (a notice). */
  uploaded: wholeNumber(0),
});
export type DatasetSearch = z.output<typeof datasetSearch>;

/** A judge against people: `evaluator` (as its results name it), its `version`, the human score `config`. */
export const alignmentSearch = z.object({ evaluator: words(), version: wholeNumber(1), config: words() });
export type AlignmentSearch = z.output<typeof alignmentSearch>;

/** A dashboard's viewer's range, filters and grouping (the traces list's, and Group by): kept in the URL, over the saved ones. */
export const dashboardSearch = z.extend(listSearchSchema, { group: oneOf(['none', 'model', 'label', 'user', 'topic']) });
export type DashboardSearch = z.output<typeof dashboardSearch>;

/** The experiment page; with `runId` the run page (the SDKs print this URL), sorted and filtered by column. */
export const experimentSearch = z.object({
  runId: words(),
  sort: words(),
  dir: oneOf(['asc', 'desc']),
  /** Filter: a column id and what to match (`>0.5`, `fail`, words). */
  col: words(),
  f: words(),
});
export type ExperimentSearch = z.output<typeof experimentSearch>;

/** Runs compared: `runs` is a comma-separated list; the baseline is the experiment's, else `baseline`, else the first. */
export const compareSearch = z.object({
  runs: words(),
  /** Compare with this run instead of the experiment's baseline (for a viewer, who cannot mark one). */
  baseline: words(),
  view: oneOf(['rows', 'regressions']),
});
export type CompareSearch = z.output<typeof compareSearch>;

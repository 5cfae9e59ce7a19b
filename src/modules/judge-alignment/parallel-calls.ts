/** Judge calls in flight at once. */
export const PARALLEL_CALLS = 4;

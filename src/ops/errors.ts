/** A failure the operator can act on (wrong target, busy directory, bad file): the CLI prints its message and exits 1. */
export class OpsError extends Error {}

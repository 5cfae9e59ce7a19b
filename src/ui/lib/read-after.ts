/**
 * Read-your-writes across server processes: a request that wrote answers the primary's WAL
 * position in `X-Spyglass-Read-After`; the app keeps the newest it was given and sends it on
 * every later request, so whichever process answers next reads from a replica only once that
 * replica has what this browser wrote (docs/operating.md, "Read replicas"). Kept in the tab's
 * session storage too: a reload, and index.html's early request (early.ts), carry it on.
 *
 * React-free: early.ts bundles it.
 */
export const READ_AFTER_HEADER = 'x-spyglass-read-after';
const KEY = 'spyglass.readAfter';

/** A WAL position (`16/B374D848`: two hexadecimal halves) as a number, null when it is not one. */
function position(text: string): bigint | null {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  return m ? (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`) : null;
}

function stored(): string | null {
  try {
    return globalThis.sessionStorage?.getItem(KEY) ?? null;
  } catch {
    return null; // storage refused (a sandboxed frame): memory only
  }
}

let newest: string | null = stored();

/** The position to send, null before any write. */
export const readAfter = (): string | null => newest;

/** Keeps a position an answer carried when it is newer than the one kept (answers may arrive out of order). */
export function noteReadAfter(response: Response): void {
  const text = response.headers.get(READ_AFTER_HEADER);
  const given = text === null ? null : position(text);
  if (given === null) return;
  const kept = newest === null ? null : position(newest);
  if (kept !== null && kept >= given) return;
  newest = text!.trim();
  try {
    globalThis.sessionStorage?.setItem(KEY, newest);
  } catch {
    /* memory only */
  }
}

/** Headers with the position added (when there is one), for requests made with fetch. */
export function withReadAfter(headers: Record<string, string>): Record<string, string> {
  return newest === null ? headers : { ...headers, [READ_AFTER_HEADER]: newest };
}

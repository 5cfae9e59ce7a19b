import { badRequest } from '../../platform/errors.ts';
import type { Keyring, SealedValue } from '../../platform/crypto.ts';

/**
 * An HTTP target's headers at rest: they carry the agent's credentials, so the definition (and
 * every run plan copied from it) holds them sealed with the installation's keyring (the
 * envelope crypto of webhook secrets and model-provider keys), bound to their experiment and
 * target so a sealed value copied elsewhere does not open. The definition also keeps each
 * header's masked value, which is all a reader is ever answered.
 */
export interface SealedHeaders {
  sealed: SealedValue;
  /** Header name to its masked value (`****` and the last 4 characters of a long value). */
  masked: Record<string, string>;
}

const MASK = '****';

/** What a reader sees of a header value: its last 4 characters only when at least 12 are hidden. */
export function maskHeader(value: string): string {
  return value.length >= 16 ? `${MASK}${value.slice(-4)}` : MASK;
}

const associated = (experimentId: string, targetId: string) => ['experiment http target headers', experimentId, targetId];

export class TargetHeaders {
  constructor(private readonly keyring: Keyring) {}

  seal(experimentId: string, targetId: string, headers: Record<string, string>): SealedHeaders {
    return {
      sealed: this.keyring.seal(JSON.stringify(headers), associated(experimentId, targetId)),
      masked: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, maskHeader(v)])),
    };
  }

  open(experimentId: string, targetId: string, stored: SealedHeaders): Record<string, string> {
    return JSON.parse(this.keyring.open(stored.sealed, associated(experimentId, targetId))) as Record<string, string>;
  }

  /**
   * The headers a PUT leaves a target with. Not sent: the stored ones stay. Sent: they replace
   * the stored set, and a value equal to the masked value GET answered for the same header keeps
   * the stored value, so a definition read, edited and written back keeps its secrets.
   */
  merge(
    experimentId: string,
    targetId: string,
    sent: Record<string, string> | undefined,
    previous: SealedHeaders | null,
    field: string,
  ): SealedHeaders | null {
    if (sent === undefined) return previous;
    let old: Record<string, string> | null = null;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(sent)) {
      if (!value.startsWith(MASK)) {
        headers[name] = value;
        continue;
      }
      if (previous?.masked[name] !== value) {
        throw badRequest('validation_error', `${field}.${name}: "${value}" is a masked value and this target has no stored header ${name} masked so; send the value`, `${field}.${name}`);
      }
      old ??= this.open(experimentId, targetId, previous);
      headers[name] = old[name];
    }
    return Object.keys(headers).length ? this.seal(experimentId, targetId, headers) : null;
  }

  /** The same headers sealed under the keyring's first key (a key rotation); null when they are sealed so already. */
  reseal(experimentId: string, targetId: string, stored: SealedHeaders): SealedHeaders | null {
    if (stored.sealed.keyId === this.keyring.currentKeyId) return null;
    const sealed = this.keyring.seal(this.keyring.open(stored.sealed, associated(experimentId, targetId)), associated(experimentId, targetId));
    return { sealed, masked: stored.masked };
  }
}

import type { Keyring, SealedValue } from '../../platform/crypto.ts';

/**
 * Signing secrets at rest: sealed with the installation's keyring (AES-256-GCM envelope,
 * src/platform/crypto.ts) and bound to their endpoint, so a sealed secret copied to
 * another endpoint's row does not open. The dispatcher needs the plaintext to sign, so a
 * one-way hash would not do.
 */
export class EndpointSecrets {
  constructor(private readonly keyring: Keyring) {}

  /** The id of the key secrets are sealed with now. */
  get currentKeyId(): string {
    return this.keyring.currentKeyId;
  }

  seal(endpointId: string, secret: string): SealedValue {
    return this.keyring.seal(secret, associated(endpointId));
  }

  open(endpointId: string, value: SealedValue): string {
    return this.keyring.open(value, associated(endpointId));
  }
}

const associated = (endpointId: string) => ['webhook endpoint signing secret', endpointId];

import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-signature` header: one `v1,<signature>` per secret, space-separated, so a
 * receiver still holding the previous secret verifies during the roll-over window.
 */
export function signatureHeader(secrets: readonly string[], messageId: string, at: Date, payload: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, at, payload)).join(' ');
}

/** The three Standard Webhooks headers of one attempt. */
export function signedHeaders(secrets: readonly string[], messageId: string, at: Date, payload: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, messageId, at, payload),
  };
}

import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import type { EndpointSecrets } from './secrets.ts';

/** What the webhooks use cases work with (built by module.ts). */
export interface WebhooksContext {
  db: Database;
  clock: Clock;
  /** Signing secrets sealed with the installation's keyring, bound to their endpoint. */
  secrets: EndpointSecrets;
  /** SPYGLASS_WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: endpoints may point at loopback and private addresses. */
  allowPrivateDestinations: boolean;
  /** Sends batches off the request path; a test event wakes it. */
  dispatcher: WebhookDispatcher;
}

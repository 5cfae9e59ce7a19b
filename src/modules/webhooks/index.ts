import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { loadKeyring } from '../../platform/crypto.ts';
import type { Metrics } from '../../platform/metrics.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { EndpointSecrets } from './secrets.ts';
import { WebhookService } from './service.ts';

export { WebhookService } from './service.ts';
export type { EndpointView, AttemptView } from './presenters.ts';
export { WebhookDispatcher, type PassResult } from './dispatcher.ts';
export { webhookRoutes } from './routes.ts';

/** The webhook service with its dispatcher (the app starts the dispatcher's loop; see WebhookDispatcher.attach). */
export function buildWebhookService(deps: { config: Config; db: Database; clock: Clock; logger: Logger }, metrics: Metrics): WebhookService {
  const secrets = new EndpointSecrets(loadKeyring(deps.config.encryptionKey, deps.config.dataDir));
  const options = deps.config.webhooks;
  const dispatcher = new WebhookDispatcher(deps.db, deps.clock, deps.logger, secrets, {
    pollMs: options.pollMs,
    allowPrivateDestinations: options.allowPrivateDestinations,
    metrics,
  });
  return new WebhookService(deps.db, deps.clock, secrets, { allowPrivateDestinations: options.allowPrivateDestinations }, dispatcher);
}
export { deliver, type DeliveryRequest, type DeliveryResult } from './delivery.ts';
export { checkHost, hostOf, DestinationError } from './destination.ts';

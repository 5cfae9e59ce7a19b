import type { SpyglassModule } from '../../platform/module.ts';
import type { Logger } from 'pino';
import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Keyring } from '../../platform/crypto.ts';
import type { Metrics } from '../../platform/metrics.ts';
import type { SealedKind } from '../../platform/sealed-kinds.ts';
import type { WebhooksContext } from './context.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { resealSecrets } from './endpoint-secrets.ts';
import { webhookRoutes } from './routes.ts';
import { EndpointSecrets } from './secrets.ts';
import * as store from './store.ts';

/** Signing secrets (current and previous) as the key tools count them. */
export const sealedSecrets: SealedKind = {
  one: 'webhook secret',
  many: 'webhook secrets',
  countByKey: store.sealedKeyCounts,
  reseal: ({ db, keyring }) => resealSecrets({ db, secrets: new EndpointSecrets(keyring) }),
};
/** The key ids on signing secrets, for the start check (which runs before migrations). */
export const secretKeyIds = store.sealedKeyIds;

/** What the webhooks module is built from (wired in app.ts). */
export interface WebhooksPorts {
  db: Database;
  clock: Clock;
  logger: Logger;
  keyring: Keyring;
  metrics: Metrics;
  /** How often the dispatcher looks for work (ms); 0: no background loop in this process. */
  pollMs: number;
  allowPrivateDestinations: boolean;
}

/** What the webhooks module offers the app: its dispatcher (tests drive its passes). */
export interface Webhooks {
  ctx: WebhooksContext;
  dispatcher: WebhookDispatcher;
}

/** The module's context and dispatcher, and its gauges on /metrics. */
export function buildWebhooks(ports: WebhooksPorts): Webhooks {
  const secrets = new EndpointSecrets(ports.keyring);
  const dispatcher = new WebhookDispatcher(ports.db, ports.clock, ports.logger, secrets, {
    pollMs: ports.pollMs,
    allowPrivateDestinations: ports.allowPrivateDestinations,
    metrics: ports.metrics,
  });
  const ctx: WebhooksContext = { db: ports.db, clock: ports.clock, secrets, allowPrivateDestinations: ports.allowPrivateDestinations, dispatcher };
  ports.metrics.gauge('spyglass_webhook_outbox_depth', 'Events written but not yet fanned out to webhook batches', [], async () => [{ value: await store.outboxDepth(ports.db.orm) }]);
  ports.metrics.gauge('spyglass_webhook_batches_pending', 'Webhook batches waiting to be sent (open, sending or retrying)', [], async () => [
    { value: await store.pendingDispatches(ports.db.orm) },
  ]);
  return { ctx, dispatcher };
}

/** The webhooks module's one entry: its routes, and the dispatcher's loop started and stopped with the app. */
export const webhooksModule: SpyglassModule<{ webhooks: Webhooks }> = {
  name: 'webhooks',
  register: ({ http }, { webhooks }) => {
    webhookRoutes(http, webhooks.ctx);
    webhooks.dispatcher.attach(http);
  },
};

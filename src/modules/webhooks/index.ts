export { buildWebhooks, webhooksModule, sealedSecrets, secretKeyIds, type Webhooks, type WebhooksPorts } from './module.ts';
export type { EndpointView, AttemptView } from './presenters.ts';
export { WebhookDispatcher, type PassResult } from './dispatcher.ts';
export { deliver, type DeliveryRequest, type DeliveryResult } from './delivery.ts';
export { checkHost, hostOf, DestinationError } from './destination.ts';

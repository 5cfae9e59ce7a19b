import type { z } from 'zod';
import type { Principal } from '../../platform/auth/index.ts';
import { AppError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { WebhooksContext } from './context.ts';
import { checkHost, DestinationError, hostOf } from './destination.ts';
import { presentEndpoint, type EndpointView } from './presenters.ts';
import { MAX_ENDPOINTS_PER_PROJECT, type createEndpointBody, type updateEndpointBody } from './schemas.ts';
import { newSigningSecret } from './signing.ts';
import * as store from './store.ts';

type CreateEndpointBody = z.output<typeof createEndpointBody>;
type UpdateEndpointBody = z.output<typeof updateEndpointBody>;

/** Subscribes a URL to events of a project; the signing secret is answered this once. */
export async function createEndpoint(ctx: WebhooksContext, principal: Principal, projectId: string, input: CreateEndpointBody): Promise<EndpointView & { secret: string }> {
  await checkDestination(ctx, input.url);
  if ((await store.countEndpoints(ctx.db.orm, projectId)) >= MAX_ENDPOINTS_PER_PROJECT) {
    throw conflict('endpoint_limit_reached', `a project has at most ${MAX_ENDPOINTS_PER_PROJECT} webhook endpoints; delete one first`);
  }
  const now = ctx.clock.now();
  const id = newId('ep');
  const secret = newSigningSecret();
  const sealed = ctx.secrets.seal(id, secret);
  const row = await store.insertEndpoint(ctx.db.orm, {
    id,
    organizationId: principal.organizationId,
    projectId,
    url: input.url,
    description: input.description ?? null,
    enabledEvents: unique(input.enabled_events),
    maxBatchSize: input.max_batch_size,
    maxBatchDelayMs: input.max_batch_delay_ms,
    receivesOrganizationEvents: isOrganizationAdmin(principal),
    secretKeyId: sealed.keyId,
    secretSealed: sealed.sealed,
    createdAt: now,
    updatedAt: now,
  });
  return { ...presentEndpoint(row), secret };
}

export async function listEndpoints(ctx: WebhooksContext, projectId: string): Promise<EndpointView[]> {
  return (await store.listEndpoints(ctx.db.orm, projectId)).map(presentEndpoint);
}

export async function getEndpoint(ctx: WebhooksContext, projectId: string, id: string): Promise<EndpointView> {
  return presentEndpoint(await findEndpoint(ctx, projectId, id));
}

export async function updateEndpoint(ctx: WebhooksContext, principal: Principal, projectId: string, id: string, patch: UpdateEndpointBody): Promise<EndpointView> {
  if (patch.url !== undefined) await checkDestination(ctx, patch.url);
  return ctx.db.orm.transaction(async (tx) => {
    const row = await store.findEndpoint(tx, projectId, id, true);
    if (!row) throw endpointNotFound(id);
    const now = ctx.clock.now();
    const changes: Partial<store.EndpointRow> = { updatedAt: now };
    if (patch.url !== undefined && patch.url !== row.url) {
      changes.url = patch.url;
      // Organization-level events follow the URL only if an organization admin chose it.
      changes.receivesOrganizationEvents = isOrganizationAdmin(principal);
    }
    if (patch.enabled_events !== undefined) changes.enabledEvents = unique(patch.enabled_events);
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.max_batch_size !== undefined) changes.maxBatchSize = patch.max_batch_size;
    if (patch.max_batch_delay_ms !== undefined) changes.maxBatchDelayMs = patch.max_batch_delay_ms;
    if (patch.enabled === true && !row.enabled) {
      Object.assign(changes, { enabled: true, disabledAt: null, disabledReason: null, failingSince: null });
    } else if (patch.enabled === false && row.enabled) {
      Object.assign(changes, { enabled: false, disabledAt: now, disabledReason: 'disabled through the API' });
    }
    return presentEndpoint(await store.updateEndpoint(tx, id, changes));
  });
}

export async function deleteEndpoint(ctx: WebhooksContext, projectId: string, id: string): Promise<void> {
  if (!(await store.deleteEndpoint(ctx.db.orm, projectId, id))) throw endpointNotFound(id);
}

/** The endpoint of this project, or a 404 naming it. */
export async function findEndpoint(ctx: WebhooksContext, projectId: string, id: string): Promise<store.EndpointRow> {
  const row = await store.findEndpoint(ctx.db.orm, projectId, id);
  if (!row) throw endpointNotFound(id);
  return row;
}

export function endpointNotFound(id: string): AppError {
  return notFound('webhook_endpoint_not_found', `no webhook endpoint ${id} in this project`);
}

async function checkDestination(ctx: WebhooksContext, url: string): Promise<void> {
  if (ctx.allowPrivateDestinations) return;
  try {
    await checkHost(hostOf(new URL(url)));
  } catch (err) {
    if (!(err instanceof DestinationError)) throw err;
    throw err.transient
      ? badRequest('url_unresolvable', `url: ${err.message}`, 'url')
      : badRequest(
          'destination_refused',
          `url: ${err.message}; webhooks are not sent to loopback, private, link-local or metadata addresses`,
          'url',
        );
  }
}

function isOrganizationAdmin(principal: Principal): boolean {
  return principal.keyType !== 'project' && principal.organizationPermissions.has('organization:manage');
}

const unique = (values: string[]) => [...new Set(values)];

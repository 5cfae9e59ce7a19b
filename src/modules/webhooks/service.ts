import type { Database } from '../../db/index.ts';
import type { WebhookEventPayload } from '../../db/schema/index.ts';
import type { Principal } from '../../platform/auth/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError, badRequest, conflict, notFound } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import { eventTypeCatalogue, type EventTypeView } from './catalogue.ts';
import { checkHost, DestinationError, hostOf } from './destination.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import { MAX_ENDPOINTS_PER_PROJECT } from './schemas.ts';
import type { EndpointSecrets } from './secrets.ts';
import { newSigningSecret } from './signing.ts';
import * as store from './store.ts';
import { presentAttempt, presentEndpoint, type AttemptView, type EndpointView } from './presenters.ts';

/** How long the old secret keeps signing after roll-secret. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface EndpointInput {
  url: string;
  enabled_events: string[];
  description?: string;
  max_batch_size: number;
  max_batch_delay_ms: number;
}

export interface EndpointPatch {
  url?: string;
  enabled_events?: string[];
  description?: string | null;
  max_batch_size?: number;
  max_batch_delay_ms?: number;
  enabled?: boolean;
}

export class WebhookService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly secrets: EndpointSecrets,
    private readonly options: { allowPrivateDestinations: boolean },
    readonly dispatcher: WebhookDispatcher,
  ) {}

  /**
   * `spyglass keys rotate-encryption`: seals every endpoint's signing secret (and previous
   * secret, while it is still accepted) again under the keyring's current key, in one
   * transaction. Returns how many sealed secrets changed.
   */
  async resealSecrets(): Promise<number> {
    const current = this.secrets.currentKeyId;
    return this.db.orm.transaction(async (tx) => {
      let resealed = 0;
      for (const row of await store.endpointsSealedWithOtherKeys(tx, current)) {
        const patch: Partial<store.EndpointRow> = {};
        if (row.secretKeyId !== current) {
          const next = this.secrets.seal(row.id, this.secrets.open(row.id, { keyId: row.secretKeyId, sealed: row.secretSealed }));
          Object.assign(patch, { secretKeyId: next.keyId, secretSealed: next.sealed });
          resealed++;
        }
        if (row.previousSecretKeyId && row.previousSecretSealed && row.previousSecretKeyId !== current) {
          const next = this.secrets.seal(row.id, this.secrets.open(row.id, { keyId: row.previousSecretKeyId, sealed: row.previousSecretSealed }));
          Object.assign(patch, { previousSecretKeyId: next.keyId, previousSecretSealed: next.sealed });
          resealed++;
        }
        await store.updateEndpoint(tx, row.id, patch);
      }
      return resealed;
    });
  }

  /** Events waiting to be fanned out to batches (the metrics' outbox depth). */
  outboxDepth(): Promise<number> {
    return store.outboxDepth(this.db.orm);
  }

  /** Batches waiting to be delivered. */
  pendingBatches(): Promise<number> {
    return store.pendingDispatches(this.db.orm);
  }

  eventTypes(): EventTypeView[] {
    return eventTypeCatalogue();
  }

  async create(principal: Principal, projectId: string, input: EndpointInput): Promise<EndpointView & { secret: string }> {
    await this.checkDestination(input.url);
    if ((await store.countEndpoints(this.db.orm, projectId)) >= MAX_ENDPOINTS_PER_PROJECT) {
      throw conflict('endpoint_limit_reached', `a project has at most ${MAX_ENDPOINTS_PER_PROJECT} webhook endpoints; delete one first`);
    }
    const now = this.clock.now();
    const id = newId('ep');
    const secret = newSigningSecret();
    const sealed = this.secrets.seal(id, secret);
    const row = await store.insertEndpoint(this.db.orm, {
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

  async list(projectId: string): Promise<EndpointView[]> {
    return (await store.listEndpoints(this.db.orm, projectId)).map(presentEndpoint);
  }

  async get(projectId: string, id: string): Promise<EndpointView> {
    return presentEndpoint(await this.find(projectId, id));
  }

  async update(principal: Principal, projectId: string, id: string, patch: EndpointPatch): Promise<EndpointView> {
    if (patch.url !== undefined) await this.checkDestination(patch.url);
    return this.db.orm.transaction(async (tx) => {
      const row = await store.findEndpoint(tx, projectId, id, true);
      if (!row) throw endpointNotFound(id);
      const now = this.clock.now();
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

  async delete(projectId: string, id: string): Promise<void> {
    if (!(await store.deleteEndpoint(this.db.orm, projectId, id))) throw endpointNotFound(id);
  }

  /** A new secret; the old one keeps signing (a second signature) for 24 hours. */
  async rollSecret(projectId: string, id: string): Promise<{ secret: string; previous_secret_expires_at: string }> {
    return this.db.orm.transaction(async (tx) => {
      const row = await store.findEndpoint(tx, projectId, id, true);
      if (!row) throw endpointNotFound(id);
      const now = this.clock.now();
      const secret = newSigningSecret();
      const sealed = this.secrets.seal(id, secret);
      const expiresAt = new Date(now.getTime() + SECRET_OVERLAP_MS);
      await store.updateEndpoint(tx, id, {
        secretKeyId: sealed.keyId,
        secretSealed: sealed.sealed,
        previousSecretKeyId: row.secretKeyId,
        previousSecretSealed: row.secretSealed,
        previousSecretExpiresAt: expiresAt,
        updatedAt: now,
      });
      return { secret, previous_secret_expires_at: expiresAt.toISOString() };
    });
  }

  /** Queues a `webhook.test` event for this endpoint alone, whatever it subscribes to. */
  async sendTest(projectId: string, id: string): Promise<{ dispatch_id: string; event: WebhookEventPayload & { type: 'webhook.test' } }> {
    const row = await this.find(projectId, id);
    if (!row.enabled) {
      throw conflict('endpoint_disabled', `endpoint ${id} is disabled${row.disabledReason ? ` (${row.disabledReason})` : ''}; PATCH {"enabled": true} first`);
    }
    const now = this.clock.now();
    const event = {
      id: newId('evt'),
      type: 'webhook.test' as const,
      schema_version: '1',
      timestamp: now.toISOString(),
      data: { endpoint_id: id, project_id: projectId, message: 'A test event sent from Spyglass: this endpoint receives webhooks.' },
    };
    const dispatchId = newId('msg');
    await store.insertDispatch(this.db.orm, {
      id: dispatchId,
      endpointId: id,
      status: 'open',
      events: [event],
      eventCount: 1,
      payload: JSON.stringify({ batch: [event] }),
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    });
    this.dispatcher.wake();
    return { dispatch_id: dispatchId, event };
  }

  /** Attempts of one endpoint, newest first, keyset-paged by an opaque cursor. */
  async deliveries(projectId: string, id: string, query: { cursor?: string; limit: number }): Promise<{ data: AttemptView[]; next_cursor: string | null }> {
    await this.find(projectId, id);
    const before = query.cursor !== undefined ? decodeCursor(query.cursor) : null;
    const page = await store.attemptsPage(this.db.orm, id, before, query.limit + 1);
    const more = page.length > query.limit;
    const data = page.slice(0, query.limit);
    return { data: data.map(presentAttempt), next_cursor: more ? encodeCursor(data[data.length - 1].seq) : null };
  }

  private async find(projectId: string, id: string): Promise<store.EndpointRow> {
    const row = await store.findEndpoint(this.db.orm, projectId, id);
    if (!row) throw endpointNotFound(id);
    return row;
  }

  private async checkDestination(url: string): Promise<void> {
    if (this.options.allowPrivateDestinations) return;
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
}

function isOrganizationAdmin(principal: Principal): boolean {
  return principal.keyType !== 'project' && principal.organizationPermissions.has('organization:manage');
}

const unique = (values: string[]) => [...new Set(values)];

function endpointNotFound(id: string): AppError {
  return notFound('webhook_endpoint_not_found', `no webhook endpoint ${id} in this project`);
}

const CURSOR_PATTERN = /^a([1-9]\d{0,17})$/;

function encodeCursor(seq: number): string {
  return Buffer.from(`a${seq}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number {
  const match = CURSOR_PATTERN.exec(/^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '');
  if (!match) throw badRequest('invalid_cursor', 'cursor: not a next_cursor this endpoint returned', 'cursor');
  return Number(match[1]);
}

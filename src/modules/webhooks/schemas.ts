import { z } from 'zod';
import { isSubscription } from './catalogue.ts';

export const MAX_ENDPOINTS_PER_PROJECT = 50;

export const MAX_URL_LENGTH = 2048;

/**
 * The checks of a receiver URL that need no network: http(s), a host, no credentials (where
 * it may connect is destination.ts's). Returns the message naming what is wrong, or null.
 */
export function urlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must use http or https, not ${url.protocol.slice(0, -1)}`;
  if (!url.hostname) return 'must name a host';
  if (url.username || url.password) return 'must not carry credentials (user:password@); verify deliveries by their signature instead';
  return null;
}

const url = z
  .string()
  .trim()
  .min(1)
  .max(MAX_URL_LENGTH)
  .superRefine((value, ctx) => {
    const problem = urlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe('http(s) URL of the receiver; loopback, private, link-local and metadata destinations are refused');

const enabledEvents = z
  .array(
    z
      .string()
      .min(1)
      .max(100)
      .refine(isSubscription, { message: 'not an event type of GET /api/webhooks/v1/event-types, a "family.*" of one, or "*"' }),
  )
  .min(1)
  .max(100)
  .describe('Exact event types, "family.*" or "*"');

const description = z.string().max(500);
const maxBatchSize = z.number().int().min(1).max(500).describe('Events per delivery at most; default 50');
const maxBatchDelayMs = z
  .number()
  .int()
  .min(0)
  .max(300_000)
  .describe('How long a batch waits for more events after its first, in ms; default 0 (send with the next dispatcher pass)');

export const createEndpointBody = z.strictObject({
  url,
  enabled_events: enabledEvents,
  description: description.optional(),
  max_batch_size: maxBatchSize.default(50),
  max_batch_delay_ms: maxBatchDelayMs.default(0),
});

export const updateEndpointBody = z.strictObject({
  url: url.optional(),
  enabled_events: enabledEvents.optional(),
  description: description.nullable().optional(),
  max_batch_size: maxBatchSize.optional(),
  max_batch_delay_ms: maxBatchDelayMs.optional(),
  enabled: z.boolean().optional().describe('true re-enables an endpoint the dispatcher disabled (and clears the reason)'),
});

export const endpointSchema = z
  .object({
    id: z.string(),
    project_id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    enabled_events: z.array(z.string()),
    max_batch_size: z.number(),
    max_batch_delay_ms: z.number(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable(),
    disabled_at: z.string().nullable(),
    receives_organization_events: z
      .boolean()
      .describe('Organization-level events (organization API keys) reach the endpoint: its URL was set by an organization admin'),
    failing_since: z.string().nullable().describe('First failed attempt since the last success'),
    last_success_at: z.string().nullable(),
    previous_secret_expires_at: z.string().nullable().describe('Until then deliveries carry a second signature with the previous secret'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const createdEndpointSchema = endpointSchema.extend({
  secret: z.string().describe('whsec_ signing secret; shown once'),
});

export const eventTypeSchema = z
  .object({
    type: z.string(),
    family: z.string(),
    schema_version: z.string(),
    is_emitting: z.boolean(),
    description: z.string(),
  })
  .meta({ id: 'WebhookEventType' });

export const attemptSchema = z
  .object({
    id: z.string(),
    dispatch_id: z.string().describe('The webhook-id header: the same on every attempt of a batch'),
    attempt: z.number(),
    event_count: z.number(),
    response_status: z.number().nullable().describe("The receiver's HTTP status; null when no response arrived"),
    latency_ms: z.number(),
    error: z.string().nullable().describe('Null when delivered'),
    fired_at: z.string(),
    outcome: z.enum(['delivered', 'retrying', 'failed']),
    next_attempt_at: z.string().nullable(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const deliveriesQuery = z.object({
  cursor: z.string().max(500).optional().describe('next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const rolledSecretSchema = z.object({
  secret: z.string().describe('The new whsec_ secret; shown once'),
  previous_secret_expires_at: z.string().describe('The old secret keeps verifying (a second signature) until then'),
});

export const testDispatchSchema = z.object({
  dispatch_id: z.string(),
  event: z.object({ id: z.string(), type: z.literal('webhook.test'), schema_version: z.string(), timestamp: z.string(), data: z.record(z.string(), z.unknown()) }),
});

import { Webhook } from 'standardwebhooks';
import type { WebhookDispatcher } from '../../src/modules/webhooks/index.ts';
import type { TestApp } from '../support/harness.ts';
import type { Received } from './receiver.ts';

/** Receivers on loopback need this; the background loop is off so tests drive the dispatcher. */
export const WEBHOOK_TEST_ENV = { SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '0' };

export const dispatcherOf = (t: TestApp): WebhookDispatcher => t.app.services.webhooks.dispatcher;

/** Webhook routes called with the admin key on the first project. */
export function admin(t: TestApp) {
  const opts = { token: t.creds.adminApiKey, projectId: t.creds.project.id };
  return {
    createEndpoint: (body: Record<string, unknown>) => t.request('POST', '/api/webhooks/v1/endpoints', { ...opts, body }),
    get: (url: string) => t.request('GET', url, opts),
    call: (method: string, url: string, body?: unknown) => t.request(method, url, { ...opts, body }),
    deliveries: (id: string, query = '') => t.request('GET', `/api/webhooks/v1/endpoints/${id}/deliveries${query}`, opts),
    /** Mints an organization service key: an organization-level api_key.created event. */
    mintKey: async (name: string) => {
      const res = await t.request('POST', '/api/api-keys', { token: t.creds.adminApiKey, body: { name, keyType: 'service' } });
      if (res.status !== 200) throw new Error(`mint failed: ${res.status} ${res.text}`);
      return res.body as { token: string; apiKey: { id: string } };
    },
  };
}

/**
 * Whether `secret` produced one of the signatures of a received request, computed
 * directly (standardwebhooks' verify also checks the timestamp against the real clock,
 * which tests move).
 */
export function signedWith(secret: string, r: Received): boolean {
  const expected = new Webhook(secret).sign(r.headers['webhook-id'], new Date(Number(r.headers['webhook-timestamp']) * 1000), r.body);
  return r.headers['webhook-signature'].split(' ').includes(expected);
}

export async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

import { z } from 'zod';
import type { Executor } from '../../db/index.ts';
import { badRequest, notFound } from '../../platform/errors.ts';
import type { NewEvent } from '../../platform/events/index.ts';
import { newId } from '../../platform/ids.ts';
import { enqueueJobs, type ClaimedJob } from '../../platform/jobs/index.ts';
import type { AlertsContext } from './context.ts';
import type { ChannelBody, ChannelView, DeliveryView, NotificationView } from './schemas.ts';
import * as store from './store.ts';

export const DELIVERY_QUEUE = 'alert-deliveries';
export const deliveryJobPayload = z.object({ deliveryId: z.string() });
/** Attempts before a delivery is marked failed in the log: backoff 10 s, 40 s, 2.7 min, 10.7 min, 43 min. */
const MAX_ATTEMPTS = 6;

const presentChannel = (c: store.ChannelRow): ChannelView => ({ id: c.id, name: c.name, kind: c.kind, target: c.kind === 'slack' ? redactUrl(c.target) : c.target, createdAt: c.created_at });
/** An incoming-webhook URL is a secret (anyone holding it can post): shown without its path. */
const redactUrl = (url: string) => `${new URL(url).origin}/…`;

const presentDelivery = (d: store.DeliveryRow): DeliveryView => ({
  id: d.id,
  eventType: d.event_type,
  subject: d.subject,
  status: d.status,
  attempts: d.attempts,
  lastError: d.last_error,
  createdAt: d.created_at,
  sentAt: d.sent_at,
});

export async function createChannel(ctx: AlertsContext, scope: { organizationId: string; projectId: string }, body: ChannelBody): Promise<ChannelView> {
  if (body.kind === 'email') {
    if (!ctx.mailer) throw badRequest('smtp_not_configured', 'kind: e-mail needs SMTP_URL set on the server', 'kind');
    if (!z.email().safeParse(body.target).success) throw badRequest('invalid_target', 'target: an e-mail address', 'target');
  } else {
    let url: URL;
    try {
      url = new URL(body.target);
    } catch {
      throw badRequest('invalid_target', 'target: the incoming-webhook URL (https://...)', 'target');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('invalid_target', 'target: an http(s) URL', 'target');
    try {
      await ctx.checkDestination(body.target);
    } catch (err) {
      throw badRequest('refused_destination', `target: ${(err as Error).message}`, 'target');
    }
  }
  const row: store.ChannelRow = { id: newId('alc'), organization_id: scope.organizationId, project_id: scope.projectId, name: body.name, kind: body.kind, target: body.target, created_at: ctx.clock.now().getTime() };
  await store.insertChannel(ctx.db.orm, row);
  return presentChannel(row);
}

export const listChannels = async (ctx: AlertsContext, projectId: string) => ({ data: (await store.listChannels(ctx.db.orm, projectId)).map(presentChannel) });

async function findChannel(ctx: AlertsContext, projectId: string, id: string) {
  const c = await store.findChannel(ctx.db.orm, projectId, id);
  if (!c) throw notFound('alert_channel_not_found', `no alert channel ${id}`);
  return c;
}

export async function deleteChannel(ctx: AlertsContext, projectId: string, id: string): Promise<{ id: string; deleted: true }> {
  if (!(await store.deleteChannel(ctx.db.orm, projectId, id))) throw notFound('alert_channel_not_found', `no alert channel ${id}`);
  return { id, deleted: true };
}

/** A rule's notifications: each message to each of its channels, with its outcome. */
export async function ruleNotifications(ctx: AlertsContext, projectId: string, ruleId: string): Promise<{ data: NotificationView[] }> {
  if (!(await store.findRule(ctx.db.orm, projectId, ruleId))) throw notFound('alert_rule_not_found', `no alert rule ${ruleId}`);
  const found = await store.listRuleDeliveries(ctx.db.orm, projectId, ruleId, 100);
  return { data: found.map((d) => ({ ...presentDelivery(d), channelId: d.channel_id, channelName: d.channel_name })) };
}

export async function channelDeliveries(ctx: AlertsContext, projectId: string, id: string): Promise<{ data: DeliveryView[] }> {
  await findChannel(ctx, projectId, id);
  return { data: (await store.listDeliveries(ctx.db.orm, id, 100)).map(presentDelivery) };
}

/** "Send a test": one message now, answered with what the receiver said (not retried, not logged). */
export async function testChannel(ctx: AlertsContext, projectId: string, id: string): Promise<{ sent: boolean; error: string | null }> {
  const c = await findChannel(ctx, projectId, id);
  const error = await send(ctx, c, { subject: 'Spyglass: a test of this alert channel', message: `A test from Spyglass: alerts of this project will arrive here (channel "${c.name}").`, link: null });
  return { sent: error === null, error };
}

/**
 * The messages of a window's alert events to the rule's channels, written in the
 * evaluation's transaction with a job each: acknowledged deliveries are never lost.
 */
export async function queueDeliveries(ctx: AlertsContext, tx: Executor, rule: { id: string; project_id: string; channel_ids: string[] | null }, events: NewEvent[], at: number): Promise<void> {
  if (!events.length) return;
  const projectId = rule.project_id;
  // The rule's chosen channels, or every channel of the project.
  const channels = (await store.listChannels(tx, projectId)).filter((c) => rule.channel_ids === null || rule.channel_ids.includes(c.id));
  const deliveries: store.DeliveryRow[] = channels.flatMap((c) =>
    events.map((e) => ({
      id: newId('ald'),
      channel_id: c.id,
      rule_id: rule.id,
      project_id: projectId,
      event_type: e.type,
      subject: subjectOf(e),
      message: e.data.message as string,
      link: (e.data.link as string | null) ?? null,
      status: 'pending' as const,
      attempts: 0,
      last_error: null,
      created_at: at,
      sent_at: null,
    })),
  );
  await store.insertDeliveries(tx, deliveries);
  await enqueueJobs(tx, deliveries.map((d) => ({ queue: DELIVERY_QUEUE, payload: { deliveryId: d.id }, runAt: at, maxAttempts: MAX_ATTEMPTS })), at);
}

const subjectOf = (e: NewEvent) => {
  const rule = e.data.rule as { name: string };
  const segment = typeof e.data.segment === 'string' && e.data.segment ? ` (${e.data.segment})` : '';
  return `${e.type === 'alert.firing' ? 'Firing' : 'Resolved'}: ${rule.name}${segment}`;
};

/** The delivery job: one attempt, logged; a failure throws so the queue retries it with backoff. */
export async function runDelivery(ctx: AlertsContext, job: ClaimedJob<z.infer<typeof deliveryJobPayload>>): Promise<void> {
  const d = await store.findDelivery(ctx.db.orm, job.payload.deliveryId);
  if (!d || d.status !== 'pending') return;
  const c = await store.findChannel(ctx.db.orm, d.project_id, d.channel_id);
  if (!c) return;
  const error = await send(ctx, c, { subject: d.subject, message: d.message, link: d.link });
  const at = ctx.clock.now().getTime();
  const last = job.attempts >= job.maxAttempts;
  await store.recordAttempt(ctx.db.orm, d.id, { status: error === null ? 'sent' : last ? 'failed' : 'pending', error, at });
  if (error !== null) throw new Error(error);
}

async function send(ctx: AlertsContext, c: store.ChannelRow, m: { subject: string; message: string; link: string | null }): Promise<string | null> {
  if (c.kind === 'email') {
    if (!ctx.mailer) return 'SMTP_URL is not set on the server';
    try {
      await ctx.mailer.send({ to: c.target, subject: m.subject, text: m.link ? `${m.message}\n\nThe traces: ${m.link}\n` : `${m.message}\n` });
      return null;
    } catch (err) {
      return `SMTP: ${(err as Error).message}`;
    }
  }
  // Slack's incoming-webhook JSON: `text` in its mrkdwn, the link as <url|label>.
  const { error } = await ctx.postJson(c.target, { text: m.link ? `*${m.subject}*\n${m.message}\n<${m.link}|Open the traces>` : `*${m.subject}*\n${m.message}` });
  return error;
}

/** Messages (reports) to chosen channels of the project, queued in the caller's transaction like alert deliveries. */
export async function queueMessages(
  tx: Executor,
  projectId: string,
  channelIds: string[],
  m: { eventType: string; subject: string; message: string; link: string | null },
  at: number,
): Promise<number> {
  const chosen = new Set(channelIds);
  const channels = (await store.listChannels(tx, projectId)).filter((c) => chosen.has(c.id));
  const deliveries: store.DeliveryRow[] = channels.map((c) => ({
    id: newId('ald'),
    channel_id: c.id,
    // A report belongs to no rule.
    rule_id: null,
    project_id: projectId,
    event_type: m.eventType,
    subject: m.subject,
    message: m.message,
    link: m.link,
    status: 'pending' as const,
    attempts: 0,
    last_error: null,
    created_at: at,
    sent_at: null,
  }));
  await store.insertDeliveries(tx, deliveries);
  await enqueueJobs(tx, deliveries.map((d) => ({ queue: DELIVERY_QUEUE, payload: { deliveryId: d.id }, runAt: at, maxAttempts: MAX_ATTEMPTS })), at);
  return deliveries.length;
}

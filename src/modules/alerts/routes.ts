import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { projectRoute, routeGroup } from '../../platform/http/route-group.ts';
import type { AlertsContext } from './context.ts';
import { acknowledgeRule, createRule, deleteRule, getRule, listRules, ruleHistory, updateRule } from './manage-rules.ts';
import { channelDeliveries, createChannel, deleteChannel, listChannels, ruleNotifications, testChannel } from './channels.ts';
import { replaceRule } from './edit-rule.ts';
import { previewRule } from './preview-rule.ts';
import { channelBody, channelSchema, createRuleBody, deliverySchema, historyQuery, historyResponse, notificationSchema, previewResponse, ruleSchema, updateRuleBody } from './schemas.ts';

const tags = ['alerts'];
const idParams = z.object({ id: z.string().min(1).max(100) });

/** Alert rule routes: the nested error shape. */
export function alertRoutes(app: FastifyInstance, ctx: AlertsContext) {
  routeGroup(app, { prefix: '/api/alerts/rules', errors: 'nested', tag: { name: 'alerts', title: 'Alerts' } }, (r, g) => {
    const project = projectRoute(r);
    const view = { auth: { scope: 'project' as const, permission: 'alerts:view' as const } };
    const manage = { auth: { scope: 'project' as const, permission: 'alerts:manage' as const } };

    project.get('/', { config: view, schema: { tags, summary: "The project's alert rules with their state", response: { 200: z.object({ data: z.array(ruleSchema) }) } } }, async (_req, { projectId }) => ({
      data: await listRules(ctx, projectId),
    }));
    project.post(
      '/',
      { config: manage, schema: { tags, summary: 'Create an alert rule: a metric watched window by window, with a threshold or a change condition', body: createRuleBody, response: { 200: ruleSchema } } },
      (req, scope) => createRule(ctx, scope, req.body),
    );
    project.post(
      '/preview',
      {
        config: view,
        schema: { tags, summary: 'Replay a rule, not saved, over the last 30 days window by window: what each window saw and when it would have fired', body: createRuleBody, response: { 200: previewResponse } },
      },
      (req, { projectId }) => previewRule(ctx, projectId, req.body),
    );
    project.put(
      '/:id',
      {
        config: manage,
        schema: { tags, summary: "Replace a rule's definition (the editor); a change of what is measured or decided starts its segments ok again", params: idParams, body: createRuleBody, response: { 200: ruleSchema, ...g.errors(404) } },
      },
      (req, { projectId }) => replaceRule(ctx, projectId, req.params.id, req.body),
    );
    project.get('/:id', { config: view, schema: { tags, params: idParams, response: { 200: ruleSchema, ...g.errors(404) } } }, (req, { projectId }) => getRule(ctx, projectId, req.params.id));
    project.patch(
      '/:id',
      { config: manage, schema: { tags, summary: 'Rename, enable or disable, mute, or snooze a rule', params: idParams, body: updateRuleBody, response: { 200: ruleSchema, ...g.errors(404) } } },
      (req, { projectId }) => updateRule(ctx, projectId, req.params.id, req.body),
    );
    project.post(
      '/:id/acknowledge',
      { config: manage, schema: { tags, summary: 'Acknowledge a firing rule', params: idParams, response: { 200: ruleSchema, ...g.errors(404) } } },
      (req, { projectId }) => acknowledgeRule(ctx, projectId, req.params.id),
    );
    project.delete(
      '/:id',
      { config: manage, schema: { tags, params: idParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...g.errors(404) } } },
      (req, { projectId }) => deleteRule(ctx, projectId, req.params.id),
    );
    project.get(
      '/:id/history',
      { config: view, schema: { tags, summary: "A rule's evaluations, newest first: what each window saw and decided", params: idParams, querystring: historyQuery, response: { 200: historyResponse, ...g.errors(404) } } },
      (req, { projectId }) => ruleHistory(ctx, projectId, req.params.id, req.query),
    );
    project.get(
      '/:id/notifications',
      {
        config: view,
        schema: { tags, summary: "A rule's messages to its channels, newest first, each with its delivery outcome", params: idParams, response: { 200: z.object({ data: z.array(notificationSchema) }), ...g.errors(404) } },
      },
      (req, { projectId }) => ruleNotifications(ctx, projectId, req.params.id),
    );
  });

  routeGroup(app, { prefix: '/api/alerts/channels', errors: 'nested', tag: { name: 'alerts', title: 'Alerts' } }, (r, g) => {
    const project = projectRoute(r);
    const view = { auth: { scope: 'project' as const, permission: 'alerts:view' as const } };
    const manage = { auth: { scope: 'project' as const, permission: 'alerts:manage' as const } };
    project.get('/', { config: view, schema: { tags, summary: "Where the project's alerts go (besides its webhooks)", response: { 200: z.object({ data: z.array(channelSchema) }) } } }, (_req, { projectId }) =>
      listChannels(ctx, projectId),
    );
    project.post(
      '/',
      { config: manage, schema: { tags, summary: "Add an e-mail or Slack-compatible channel: it gets the alerts of the rules that choose it and of rules that leave their channels unset (null)", body: channelBody, response: { 200: channelSchema } } },
      (req, scope) => createChannel(ctx, scope, req.body),
    );
    project.delete(
      '/:id',
      { config: manage, schema: { tags, params: idParams, response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...g.errors(404) } } },
      (req, { projectId }) => deleteChannel(ctx, projectId, req.params.id),
    );
    project.post(
      '/:id/test',
      { config: manage, schema: { tags, summary: 'Send a test message now; answers what the receiver said', params: idParams, response: { 200: z.object({ sent: z.boolean(), error: z.string().nullable() }), ...g.errors(404) } } },
      (req, { projectId }) => testChannel(ctx, projectId, req.params.id),
    );
    project.get(
      '/:id/deliveries',
      { config: view, schema: { tags, summary: "The channel's delivery log, newest first", params: idParams, response: { 200: z.object({ data: z.array(deliverySchema) }), ...g.errors(404) } } },
      (req, { projectId }) => channelDeliveries(ctx, projectId, req.params.id),
    );
  });
}

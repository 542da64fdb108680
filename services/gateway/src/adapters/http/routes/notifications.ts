/**
 * The user's notifications (docs/adr/0031), /api/v1/notifications, for their own bearer token: which kinds reach them
 * outside the console (new cards, new asks), their Slack-compatible webhook, and their browsers' Web Push
 * subscriptions (the console's Settings → Notifications). The question service owns them; a bad value answers 400
 * REMOTE_RELAY_INVALID_INPUT naming the field, and nothing changes.
 *
 *   GET    /api/v1/notifications                      → { settings }
 *   PATCH  /api/v1/notifications                      { webhook_url?, cards?, asks? } → { settings }
 *   POST   /api/v1/notifications/push-subscriptions   a PushSubscription's JSON { endpoint, keys: { p256dh, auth } } → { settings }
 *   DELETE /api/v1/notifications/push-subscriptions   { endpoint } → { settings }
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { NotificationSettings } from '@relay/proto/relay/question/v1/question_service';
import { answered } from '../../../domain/answers.ts';
import { callOwner, sendError, userOf } from '../user-api.ts';
import { answers, invalidInput, madeAnswers, typed } from '../openapi.ts';
import type { CardRouteDeps } from './cards.ts';

const FIELDS = ['webhook_url', 'cards', 'asks'] as const;

const SettingsBody = z.strictObject(
  {
    webhook_url: z
      .string({ error: 'webhook_url must be a URL, or "" for none' })
      .max(2000, { error: 'webhook_url is longer than 2,000 characters' })
      .optional(),
    cards: z.boolean({ error: 'cards must be true or false' }).optional(),
    asks: z.boolean({ error: 'asks must be true or false' }).optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${issue.keys.join(', ')} ${issue.keys.length === 1 ? 'is not a setting' : 'are not settings'}; the settings are ${FIELDS.join(', ')}`
        : 'the body must be a JSON object, for example {"cards": true, "asks": false, "webhook_url": "https://hooks.slack.com/services/…"}',
  },
);

const endpoint = z.string({ error: "endpoint must be the push subscription's URL" }).min(1).max(2000);
const key = (name: string) =>
  z
    .string({ error: `keys.${name} must be the subscription's ${name} key` })
    .min(1)
    .max(200);
const SubscriptionBody = z.object(
  { endpoint, keys: z.object({ p256dh: key('p256dh'), auth: key('auth') }, { error: 'keys must hold p256dh and auth' }) },
  { error: 'the body must be a PushSubscription as JSON: {"endpoint": …, "keys": {"p256dh": …, "auth": …}}' },
);
const EndpointBody = z.object({ endpoint }, { error: 'the body must be {"endpoint": …}' });

const Settings = z
  .strictObject({
    webhookUrl: z.string().describe('A Slack-compatible webhook, or "" for none.'),
    cards: z.boolean().describe('New cards reach the person outside the console.'),
    asks: z.boolean().describe('New asks reach the person outside the console.'),
    vapidPublicKey: z.string().describe("The relay's Web Push key, for a browser's subscription."),
    pushSubscriptions: z.number().int().describe("How many of the person's browsers get Web Push."),
  })
  .meta({ id: 'NotificationSettings' });
const SettingsAnswer = z.strictObject({ settings: Settings });

/** Registers the notification routes on `app`. */
export function registerNotificationRoutes(app: FastifyInstance, deps: CardRouteDeps): void {
  const api = typed(app);
  api.get('/api/v1/notifications', { schema: { response: answers(SettingsAnswer) } }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined) return reply;
    const read = await callOwner(reply, deps.logger, () => deps.questions.getNotificationSettings({ userId }));
    return read === undefined ? reply : { settings: settingsView(answered(read.settings, 'GetNotificationSettings', 'settings')) };
  });

  api.patch('/api/v1/notifications', { schema: { body: SettingsBody, response: answers(SettingsAnswer) }, attachValidation: true }, async (request, reply) => {
    const userId = await userOf(deps, request, reply);
    if (userId === undefined || invalidInput(request, reply)) return reply;
    const { body } = request;
    if (FIELDS.every((field) => body[field] === undefined))
      return sendError(reply, 400, 'REMOTE_RELAY_INVALID_INPUT', `give at least one of ${FIELDS.join(', ')}`);
    const change = { userId, webhookUrl: body.webhook_url, cards: body.cards, asks: body.asks };
    const updated = await callOwner(reply, deps.logger, () => deps.questions.updateNotificationSettings(change));
    return updated === undefined ? reply : { settings: settingsView(answered(updated.settings, 'UpdateNotificationSettings', 'settings')) };
  });

  api.post(
    '/api/v1/notifications/push-subscriptions',
    { schema: { body: SubscriptionBody, response: madeAnswers(SettingsAnswer) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { endpoint: url, keys } = request.body;
      const subscription = { userId, endpoint: url, p256dh: keys.p256dh, auth: keys.auth };
      const added = await callOwner(reply, deps.logger, () => deps.questions.addPushSubscription(subscription));
      if (added === undefined) return reply;
      return reply.code(201).send({ settings: settingsView(answered(added.settings, 'AddPushSubscription', 'settings')) });
    },
  );

  api.delete(
    '/api/v1/notifications/push-subscriptions',
    { schema: { body: EndpointBody, response: answers(SettingsAnswer) }, attachValidation: true },
    async (request, reply) => {
      const userId = await userOf(deps, request, reply);
      if (userId === undefined || invalidInput(request, reply)) return reply;
      const { endpoint: url } = request.body;
      const removed = await callOwner(reply, deps.logger, () => deps.questions.removePushSubscription({ userId, endpoint: url }));
      return removed === undefined ? reply : { settings: settingsView(answered(removed.settings, 'RemovePushSubscription', 'settings')) };
    },
  );
}

/** The settings as the user API shows them. */
function settingsView(settings: NotificationSettings) {
  return {
    webhookUrl: settings.webhookUrl,
    cards: settings.cards,
    asks: settings.asks,
    vapidPublicKey: settings.vapidPublicKey,
    pushSubscriptions: settings.pushSubscriptions,
  };
}

/**
 * Notifications (docs/adr/0031): a new card or ask reaches its user outside the console — through Web Push to each
 * browser they subscribed and a Slack-compatible webhook — as their settings say. The bus consumer hands each event
 * here; a target that fails for now makes the event come again (JetStream redelivers it, after a restart too) and
 * the targets it already reached are skipped.
 */
import { appError } from '@relay/errors';

/** Which kinds reach the user, and their webhook ('' for none). */
export interface NotificationSettings {
  webhookUrl: string;
  cards: boolean;
  asks: boolean;
}

/** A browser's Web Push subscription. */
export interface PushTarget {
  endpoint: string;
  /** The browser's P-256 public key and auth secret, base64url. */
  p256dh: string;
  auth: string;
}

/** The relay's VAPID key pair, base64url. */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** The settings as the user sees them: with the relay's VAPID public key and how many browsers are subscribed. */
export interface NotificationView extends NotificationSettings {
  vapidPublicKey: string;
  pushSubscriptions: number;
}

/** The notification settings, subscriptions, VAPID keys and sends of this service's database. */
export interface NotificationStore {
  /** The user's settings (the defaults when they never set any) and their browsers' subscriptions. */
  targets(userId: string): Promise<{ settings: NotificationSettings; pushes: PushTarget[] }>;
  saveSettings(userId: string, settings: NotificationSettings, now: Date): Promise<void>;
  /** Keeps the subscription for the user (an endpoint seen before is replaced). */
  addPush(userId: string, target: PushTarget, now: Date): Promise<void>;
  /** Forgets an endpoint (of `userId` only, when given). */
  removePush(endpoint: string, userId?: string): Promise<void>;
  /** The relay's VAPID keys: those kept, or `make()`'s, kept now (the first caller's win a race). */
  vapidKeys(make: () => VapidKeys, now: Date): Promise<VapidKeys>;
  /** The targets an event's notification already reached. */
  sentTargets(eventId: string): Promise<Set<string>>;
  markSent(eventId: string, target: string, now: Date): Promise<void>;
  /** Forgets the targets an event reached, once it went everywhere it goes (only a retry needs them). */
  forgetSends(eventId: string): Promise<void>;
}

/** sent: it arrived; gone: it never will (the subscription expired, the URL refuses it); retry: try again later. */
export type SendOutcome = 'sent' | 'gone' | 'retry';

/** What carries a notification out. */
export interface NotificationSenders {
  webhook(url: string, body: { text: string }): Promise<SendOutcome>;
  push(target: PushTarget, payload: string, vapid: VapidKeys): Promise<SendOutcome>;
  /** A new VAPID key pair. */
  makeVapidKeys(): VapidKeys;
}

export interface NotificationDeps {
  notifications: NotificationStore;
  senders: NotificationSenders;
  /** This relay's name, in the notification's words. */
  relayName: string;
}

/** What happened, as a notification says it. */
export interface Notice {
  /** The event's id: a redelivery of it skips the targets it reached. */
  eventId: string;
  userId: string;
  kind: 'card' | 'ask';
  /** One line: the card's title, the ask's question. */
  text: string;
  /** Where the console shows it (a path). */
  path: string;
}

const DEFAULTS: NotificationSettings = { webhookUrl: '', cards: true, asks: true };

/** The defaults for a user who never set anything. */
export function defaultNotificationSettings(): NotificationSettings {
  return { ...DEFAULTS };
}

/** The user's settings with the relay's VAPID public key (made now, at its first use, if none is kept). */
export async function notificationView(deps: Pick<NotificationDeps, 'notifications' | 'senders'>, userId: string, now: Date): Promise<NotificationView> {
  const [{ settings, pushes }, vapid] = await Promise.all([
    deps.notifications.targets(userId),
    deps.notifications.vapidKeys(() => deps.senders.makeVapidKeys(), now),
  ]);
  return { ...settings, vapidPublicKey: vapid.publicKey, pushSubscriptions: pushes.length };
}

/** Changes the user's settings (an unset field stays); a webhook URL must be http or https. */
export async function updateNotificationSettings(
  deps: Pick<NotificationDeps, 'notifications' | 'senders'>,
  userId: string,
  change: Partial<NotificationSettings>,
  now: Date,
): Promise<NotificationView> {
  if (change.webhookUrl !== undefined && change.webhookUrl !== '' && !isWebUrl(change.webhookUrl, ['http:', 'https:'])) {
    throw appError('REMOTE_RELAY_INVALID_INPUT', 'webhook_url must be an http or https URL, or empty for none', { details: { field: 'webhook_url' } });
  }
  const { settings } = await deps.notifications.targets(userId);
  await deps.notifications.saveSettings(
    userId,
    { ...settings, ...definedOnly(change), ...(change.webhookUrl === undefined ? {} : { webhookUrl: change.webhookUrl.trim() }) },
    now,
  );
  return notificationView(deps, userId, now);
}

/** Keeps a browser's subscription; its endpoint must be http(s) and its keys given. */
export async function addPushSubscription(
  deps: Pick<NotificationDeps, 'notifications' | 'senders'>,
  userId: string,
  target: PushTarget,
  now: Date,
): Promise<NotificationView> {
  if (!isWebUrl(target.endpoint, ['https:', 'http:']) || target.p256dh === '' || target.auth === '') {
    throw appError('REMOTE_RELAY_INVALID_INPUT', 'a push subscription needs its endpoint (an https URL) and its keys p256dh and auth', {
      details: { field: 'endpoint' },
    });
  }
  await deps.notifications.addPush(userId, target, now);
  return notificationView(deps, userId, now);
}

/** Forgets a browser's subscription of the user. */
export async function removePushSubscription(
  deps: Pick<NotificationDeps, 'notifications' | 'senders'>,
  userId: string,
  endpoint: string,
  now: Date,
): Promise<NotificationView> {
  await deps.notifications.removePush(endpoint, userId);
  return notificationView(deps, userId, now);
}

/** The webhook's text and the push payload of a notice. */
export function noticeWords(notice: Notice, relayName: string): { text: string; payload: { title: string; body: string; path: string; tag: string } } {
  const title = notice.kind === 'card' ? `A card waits for you on ${relayName}` : `An agent asks you on ${relayName}`;
  return { text: `${title}: ${notice.text}`, payload: { title, body: notice.text, path: notice.path, tag: notice.eventId } };
}

/**
 * Tells the user of a notice through each target their settings name, skipping those this event already reached.
 * A subscription its push service calls gone is forgotten; a webhook that refuses it for good is given up on. When
 * a target should be tried again it throws a transient error: the bus redelivers the event with back-off.
 */
export async function notifyPerson(deps: NotificationDeps, notice: Notice, now: Date): Promise<{ sent: string[]; retry: string[] }> {
  const { settings, pushes } = await deps.notifications.targets(notice.userId);
  if (notice.kind === 'card' ? !settings.cards : !settings.asks) return { sent: [], retry: [] };
  const done = await deps.notifications.sentTargets(notice.eventId);
  const words = noticeWords(notice, deps.relayName);
  const sent: string[] = [];
  const retry: string[] = [];
  const settle = async (target: string, outcome: SendOutcome, gone: () => Promise<void>) => {
    if (outcome === 'retry') retry.push(target);
    else {
      if (outcome === 'gone') await gone();
      else sent.push(target);
      await deps.notifications.markSent(notice.eventId, target, now);
    }
  };
  if (settings.webhookUrl !== '' && !done.has(`webhook:${settings.webhookUrl}`)) {
    await settle(`webhook:${settings.webhookUrl}`, await deps.senders.webhook(settings.webhookUrl, { text: words.text }), async () => undefined);
  }
  const todo = pushes.filter((push) => !done.has(`push:${push.endpoint}`));
  if (todo.length > 0) {
    const vapid = await deps.notifications.vapidKeys(() => deps.senders.makeVapidKeys(), now);
    for (const push of todo) {
      await settle(`push:${push.endpoint}`, await deps.senders.push(push, JSON.stringify(words.payload), vapid), () =>
        deps.notifications.removePush(push.endpoint),
      );
    }
  }
  if (retry.length > 0) {
    throw appError('SERVICE_UNAVAILABLE', `a notification did not get through to ${retry.length} target(s) yet; it is tried again`, {
      details: { event: notice.eventId },
    });
  }
  // Done with it: its rows only served its retries (a redelivery after this would notify again, at most once more).
  await deps.notifications.forgetSends(notice.eventId);
  return { sent, retry };
}

function isWebUrl(value: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function definedOnly(change: Partial<NotificationSettings>): Partial<NotificationSettings> {
  return Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
}

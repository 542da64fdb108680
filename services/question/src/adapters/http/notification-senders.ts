/**
 * The notifications' ways out: a Slack-compatible webhook (POST {"text": …}) and Web Push (RFC 8030, the payload
 * encrypted for the browser as RFC 8291 aes128gcm with VAPID auth, RFC 8292, by the web-push library; sent with
 * fetch so any push service URL works). 2xx is sent; 404 and 410 (a push subscription that expired) and other 4xx
 * but 429 are gone; 429, 5xx and a network fault are tried again.
 */
import webpush from 'web-push';
import type { NotificationSenders, PushTarget, SendOutcome, VapidKeys } from '../../app/notifications.ts';
import type { Logger } from '@relay/telemetry';

const TIMEOUT_MS = 10_000;
// How long a push service keeps a notification for a browser that is offline.
const PUSH_TTL_SECONDS = 24 * 3600;

export interface SenderOptions {
  /** The VAPID subject: a mailto: or https: URL the push service may contact. */
  vapidSubject: string;
  logger: Logger;
}

/** NotificationSenders over fetch and web-push. */
export function notificationSenders(options: SenderOptions): NotificationSenders {
  const post = async (url: string, init: RequestInit, what: string): Promise<SendOutcome> => {
    try {
      const response = await fetch(url, { ...init, method: 'POST', signal: AbortSignal.timeout(TIMEOUT_MS) });
      await response.body?.cancel();
      if (response.ok) return 'sent';
      options.logger.warn({ status: response.status, what }, 'a notification was refused');
      return response.status === 429 || response.status >= 500 ? 'retry' : 'gone';
    } catch (error) {
      options.logger.warn({ err: error, what }, 'a notification did not get through');
      return 'retry';
    }
  };
  return {
    webhook: (url, body) => post(url, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, 'webhook'),
    push: async (target: PushTarget, payload: string, vapid: VapidKeys) => {
      const request = webpush.generateRequestDetails({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, payload, {
        vapidDetails: { subject: options.vapidSubject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
        TTL: PUSH_TTL_SECONDS,
        contentEncoding: 'aes128gcm',
      });
      return post(
        request.endpoint,
        { headers: request.headers as Record<string, string>, body: request.body === null ? null : new Uint8Array(request.body) },
        'push',
      );
    },
    makeVapidKeys: () => webpush.generateVAPIDKeys(),
  };
}

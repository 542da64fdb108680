// The user's notifications (docs/adr/0031): which kinds reach them outside the console (new cards, new asks), a
// Slack-compatible webhook, and Web Push to this browser through the console's service worker (/sw.js). Loaded only
// when the page is opened (notifications-entry.tsx), so the first load stays small.
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '@relay/user-api';
import { api } from '../api.ts';
import { ErrorNote } from '../parts/error-note.tsx';
import { useAction } from '../parts/use-action.ts';
import { useApi } from '../use-api.ts';

const KINDS: ['cards' | 'asks', string][] = [
  ['cards', 'New cards (approvals and agents’ questions)'],
  ['asks', 'New asks (questions that do not block)'],
];

export default function NotificationsPage() {
  const read = useApi('/api/v1/notifications', {}, 'inbox');
  const action = useAction();
  const settings = read.data?.settings;
  return (
    <main id="main">
      <h1>Notifications</h1>
      <p class="muted">What reaches you outside the console when a card or an ask waits for you.</p>
      <ErrorNote error={read.error} />
      <ErrorNote error={action.error} />
      {settings ? (
        <>
          <fieldset class="settings notification-kinds">
            <legend>Tell me about</legend>
            {KINDS.map(([kind, label]) => (
              <KindToggle key={kind} kind={kind} label={label} on={settings[kind]} />
            ))}
          </fieldset>
          <form
            class="settings"
            aria-label="Webhook"
            onSubmit={(event) => {
              event.preventDefault();
              const url = String(new FormData(event.currentTarget).get('webhook_url') ?? '').trim();
              void action.run(() => api.patch('/api/v1/notifications', { body: { webhook_url: url } }));
            }}
          >
            <label>
              Webhook URL (Slack-compatible: the relay posts {'{"text": …}'}; empty for none)
              <input type="url" name="webhook_url" defaultValue={settings.webhookUrl} placeholder="https://hooks.slack.com/services/…" />
            </label>
            <button type="submit" class="primary" disabled={action.busy}>
              Save webhook
            </button>
          </form>
          <ThisBrowser settings={settings} />
        </>
      ) : null}
    </main>
  );
}

/** One kind's switch: it shows the person's choice at once and goes back if the relay refused it. */
function KindToggle({ kind, label, on }: { kind: 'cards' | 'asks'; label: string; on: boolean }) {
  const action = useAction();
  const [checked, setChecked] = useState(on);
  useEffect(() => setChecked(on), [on]);
  return (
    <label class="check">
      <input
        type="checkbox"
        name={kind}
        checked={checked}
        onChange={(event) => {
          const wanted = event.currentTarget.checked;
          setChecked(wanted);
          void action
            .run(() => api.patch('/api/v1/notifications', { body: kind === 'cards' ? { cards: wanted } : { asks: wanted } }))
            .then((saved) => {
              if (!saved) setChecked(!wanted);
            });
        }}
      />
      {label}
      {action.error ? <ErrorNote error={action.error} /> : null}
    </label>
  );
}

/** Web Push to this browser: subscribe through the service worker with the relay's VAPID key, or unsubscribe. */
function ThisBrowser({ settings }: { settings: Schemas['NotificationSettings'] }) {
  const action = useAction();
  const supported = typeof navigator !== 'undefined' && 'serviceWorker' in navigator && typeof window !== 'undefined' && 'PushManager' in window;
  const [subscribed, setSubscribed] = useState<boolean | undefined>(undefined);
  useEffect(() => {
    if (!supported) return;
    void navigator.serviceWorker.getRegistration('/').then(async (registration) => setSubscribed((await registration?.pushManager.getSubscription()) != null));
  }, [supported, action.busy]);
  return (
    <section aria-labelledby="push-head" class="push">
      <h2 id="push-head">This browser</h2>
      <p class="muted" data-push-count>
        {settings.pushSubscriptions === 0
          ? 'No browser is subscribed yet.'
          : `${settings.pushSubscriptions} browser${settings.pushSubscriptions === 1 ? '' : 's'} subscribed.`}
      </p>
      <ErrorNote error={action.error} />
      {!supported ? (
        <p>This browser cannot receive Web Push notifications.</p>
      ) : subscribed ? (
        <button type="button" disabled={action.busy} onClick={() => void action.run(unsubscribe)}>
          Unsubscribe this browser
        </button>
      ) : (
        <button type="button" class="primary" disabled={action.busy} onClick={() => void action.run(() => subscribe(settings.vapidPublicKey))}>
          Subscribe this browser
        </button>
      )}
    </section>
  );
}

async function subscribe(vapidPublicKey: string): Promise<void> {
  if ((await Notification.requestPermission()) !== 'granted') throw new Error('Notifications are blocked for this site in the browser’s settings.');
  const registration = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromBase64Url(vapidPublicKey) });
  const { endpoint = '', keys = {} } = subscription.toJSON();
  await api.post('/api/v1/notifications/push-subscriptions', { body: { endpoint, keys: { p256dh: keys['p256dh'] ?? '', auth: keys['auth'] ?? '' } } });
}

async function unsubscribe(): Promise<void> {
  const subscription = await (await navigator.serviceWorker.getRegistration('/'))?.pushManager.getSubscription();
  if (!subscription) return;
  await api.delete('/api/v1/notifications/push-subscriptions', { body: { endpoint: subscription.endpoint } });
  await subscription.unsubscribe();
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=');
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}

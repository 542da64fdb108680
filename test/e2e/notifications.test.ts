// Notifications (issue 40, item 4; docs/adr/0031) against the shared relay: the user's settings over the user API, a
// new card posted to their Slack-compatible webhook and a new ask sent as Web Push to a subscribed browser (a local
// HTTP server plays the webhook receiver and the push service: aes128gcm with VAPID auth by the relay's key), and
// the console's Notifications page (Debian's chromium driven headless by playwright-core): per-kind toggles, the
// webhook URL, "Subscribe this browser" with the service worker at /sw.js, axe-core at 0 serious/critical.
import { createECDH, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchChromium, seriousViolations } from '../harness/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelayClient } from '../harness/relay.ts';
import { callTool, RelayUser } from '../harness/relay-user.ts';
import { sharedRelay } from '../harness/shared-relay.ts';
import { until } from '../harness/until.ts';

let relay: RelayClient;
let user: RelayUser;
let browser: Browser;
let receiver: Server;
let receiverUrl: string;
const received: { path: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];

beforeAll(async () => {
  [relay, browser] = await Promise.all([sharedRelay(), launchChromium()]);
  user = new RelayUser(relay, relay.userToken);
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.statusCode = 201;
      response.end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  receiver?.close();
  await browser?.close();
  await user?.close();
  await relay?.stop();
});

describe('notifications', () => {
  it('post a new card to the webhook and send a new ask by Web Push to a subscribed browser', async () => {
    const initial = await user.api('GET', '/api/v1/notifications');
    expect(initial.status).toBe(200);
    expect(initial.body.settings).toMatchObject({ webhookUrl: '', cards: true, asks: true, pushSubscriptions: 0 });
    expect((await user.api('PATCH', '/api/v1/notifications', { webhook_url: 'not a url' })).body).toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect((await user.api('PATCH', '/api/v1/notifications', { webhook_url: `${receiverUrl}/hook` })).status).toBe(200);

    const asking = await user.scriptSession('Notify me', 'ask_user Deploy to production now? | Yes | No\nreply {{answer}}');
    const hook = await until('the webhook post', () => received.find((r) => r.path === '/hook'));
    expect(hook.headers['content-type']).toBe('application/json');
    expect(JSON.parse(hook.body.toString())).toEqual({ text: `A card waits for you on ${relay.name}: Deploy to production now?` });
    const card = await user.pendingCard(asking.id);
    expect((await user.api('POST', `/api/v1/cards/${card.id}`, { decision: 'answer', choices: ['No'] })).status).toBe(200);

    // A browser subscribes (as PushSubscription.toJSON() reads); an agent's ask reaches it through the push service.
    const browserKeys = createECDH('prime256v1');
    browserKeys.generateKeys();
    const subscription = {
      endpoint: `${receiverUrl}/push/e2e`,
      keys: { p256dh: browserKeys.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
    };
    const added = await user.api('POST', '/api/v1/notifications/push-subscriptions', subscription);
    expect(added.status).toBe(201);
    expect(added.body.settings.pushSubscriptions).toBe(1);
    const agent = await user.externalAgent('Asker');
    expect(await callTool(agent, { action: 'ask', relay: 'this', question: 'Ship tonight?', options: ['Tonight', 'Wait'] })).toMatchObject({
      ok: true,
      status: 'pending',
    });
    const push = await until('the push', () => received.find((r) => r.path === '/push/e2e'));
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(String(push.headers['authorization'])).toMatch(new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${added.body.settings.vapidPublicKey}$`));
    // The webhook had both: the card's post and the ask's.
    expect(received.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body.toString()).text)).toEqual([
      `A card waits for you on ${relay.name}: Deploy to production now?`,
      `An agent asks you on ${relay.name}: Ship tonight?`,
    ]);

    const removed = await user.api('DELETE', '/api/v1/notifications/push-subscriptions', { endpoint: subscription.endpoint });
    expect(removed.body.settings.pushSubscriptions).toBe(0);
  });

  it('has a Notifications page in the console: per-kind toggles, the webhook URL, a "Subscribe this browser" button with its service worker', async () => {
    const worker = await fetch(`${relay.gatewayUrl}/sw.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await worker.text()).toContain("addEventListener('push'");

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    try {
      await page.goto(`${relay.gatewayUrl}/#token=${encodeURIComponent(relay.userToken)}`);
      await page.getByRole('heading', { name: 'Sessions' }).waitFor({ timeout: 15_000 });
      await page.getByRole('link', { name: 'Notifications' }).click();
      await page.getByRole('heading', { name: 'This browser' }).waitFor({ timeout: 15_000 });
      expect(await page.title()).toContain('Notifications');
      expect(await page.getByLabel(/Webhook URL/).inputValue()).toBe(`${receiverUrl}/hook`);
      await page.getByRole('button', { name: 'Subscribe this browser' }).waitFor();

      await page.getByRole('checkbox', { name: /New asks/ }).uncheck();
      await until('asks off', async () => ((await user.api('GET', '/api/v1/notifications')).body.settings.asks === false ? true : undefined));
      await page.getByLabel(/Webhook URL/).fill('');
      await page.getByRole('button', { name: 'Save webhook' }).click();
      await until('no webhook', async () => ((await user.api('GET', '/api/v1/notifications')).body.settings.webhookUrl === '' ? true : undefined));
      expect((await user.api('GET', '/api/v1/notifications')).body.settings).toMatchObject({ cards: true, asks: false, webhookUrl: '' });

      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

// A message's delivery (issue 40, item 3), against the shared relay: each message sent to a session — by the person,
// another agent, a schedule — says whether it is queued, delivered to the agent or failed, read off the turn it
// queued, the same in the user API, read_session, `relay session show` and the console's conversation (Debian's
// chromium driven headless by playwright-core, axe-core at 0 serious/critical); the sender's send result says it too.
import type { Browser } from 'playwright-core';
import { launchChromium, seriousViolations } from '../harness/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRelayCli } from '../harness/relay-cli.ts';
import type { RelayClient } from '../harness/relay.ts';
import { callTool, RelayUser, toolStep as tool } from '../harness/relay-user.ts';
import { sharedRelay } from '../harness/shared-relay.ts';
import { until } from '../harness/until.ts';

let relay: RelayClient;
let user: RelayUser;
let browser: Browser;

beforeAll(async () => {
  [relay, browser] = await Promise.all([sharedRelay(), launchChromium()]);
  user = new RelayUser(relay, relay.userToken);
});

afterAll(async () => {
  await browser?.close();
  await user?.close();
  await relay?.stop();
});

/** Each message of the session as [role, delivery] (delivery absent on replies and error rows), from the user API. */
async function deliveries(sessionId: string): Promise<[string, string | undefined][]> {
  const { body } = await user.api('GET', `/api/v1/sessions/${sessionId}?last=20`);
  return body.messages.map((message: { role: string; delivery?: string }) => [message.role, message.delivery]);
}

describe('delivery', () => {
  it('is queued behind a waiting turn, delivered once its turn starts, failed when its turn fails — everywhere the person and agents look', async () => {
    // The first prompt's turn waits on a card: it was delivered; what comes after it queues.
    const target = await user.scriptSession('Delivery target', 'ask_user Go on? | Yes\nreply went on');
    const card = await user.pendingCard(target.id);
    const failing = await user.say(target.id, 'fail boom');
    // Another agent sends without waiting: its result says the message is queued.
    const lead = await user.scriptSession(
      'Delivery lead',
      [tool({ action: 'send', relay: 'this', session: target.id, text: 'reply third', wait_seconds: 0 }), 'reply {{result.status}} {{result.delivery}}'].join(
        '\n',
      ),
    );
    const led = await user.finish(lead.id, lead.messageId);
    expect(led.reply.text).toBe('queued queued');
    expect(led.delivery).toBe('delivered');

    expect(await deliveries(target.id)).toEqual([
      ['user', 'delivered'],
      ['user', 'queued'],
      ['agent', 'queued'],
    ]);
    const reader = await user.externalAgent('Delivery reader');
    const read = await callTool(reader, { action: 'read_session', relay: 'this', session: target.id });
    expect(read.messages.map((message: { delivery?: string }) => message.delivery)).toEqual(['delivered', 'queued', 'queued']);
    const shown = await runRelayCli(relay, relay.userToken, 'session', 'show', target.id);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^user · .* · delivered$/m);
    expect(shown.stdout.match(/ · queued$/gm)).toHaveLength(2);

    // Allowed: the first turn ends, the failing one fails (its error row has no delivery), the third runs.
    expect((await user.api('POST', `/api/v1/cards/${card.id}`, { decision: 'answer', choices: ['Yes'] })).status).toBe(200);
    expect((await user.finish(target.id, failing)).status).toBe('error');
    await user.settled(target.id);
    const after = await deliveries(target.id);
    expect(after.filter(([role]) => role === 'user' || role === 'agent')).toEqual([
      ['user', 'delivered'],
      ['user', 'failed'],
      ['agent', 'delivered'],
    ]);
    expect(after.filter(([role]) => role === 'assistant' || role === 'error').sort()).toEqual([
      ['assistant', undefined],
      ['assistant', undefined],
      ['error', undefined],
    ]);
    const again = await runRelayCli(relay, relay.userToken, 'session', 'show', target.id);
    expect(again.stdout.match(/ · failed$/gm)).toHaveLength(1);

    // The console's conversation tags each message sent to the session, and stays accessible.
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await page.goto(`${relay.gatewayUrl}/#token=${encodeURIComponent(relay.userToken)}`);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor({ timeout: 15_000 });
    await page.goto(`${relay.gatewayUrl}/sessions/${encodeURIComponent(target.id)}`);
    const tags = await until('the delivery tags', async () => {
      const found = await page.locator('[data-delivery]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-delivery')));
      return found.length === 3 ? found : undefined;
    });
    expect(tags).toEqual(['delivered', 'failed', 'delivered']);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});

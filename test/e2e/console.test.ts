// The web console end to end, in a real browser: Debian's chromium, driven headless by playwright-core, against a
// whole relay (the six services as processes). The person signs in with their user token, sees their sessions,
// finds the card an agent's create_session raised in the Inbox (the header's count updating live), allows it
// there, and the agent's call goes on; the conversation opens at relay_tool's openUrl path with the reply; after
// the gateway restarts, the page picks up the next card by itself; asks, Unsubscribe, schedules, pairing codes,
// session actions, settings and usage work from their pages. The Usage page charts the tokens and cost that an
// OpenAI-compatible endpoint (a fake one on loopback) reported for real turns. A member signs in too and sees only
// their own things, with no Users or relay-wide settings. Each step saves a screenshot (with an axe-core scan)
// under .relay/e2e-artifacts/.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, seriousViolations } from '../harness/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunk, DONE, startFakeOpenAiApi, usageChunk, type FakeOpenAiApi } from '../harness/fake-openai-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { RelayUser, toolStep as tool } from '../harness/relay-user.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ARTIFACTS = `${root}.relay/e2e-artifacts`;

let relay: Relay;
let user: RelayUser;
let browser: Browser;
let page: Page;
let openAi: FakeOpenAiApi;

/** The tokens each model's answer reports: the Usage page charts their sums. */
const TOKENS: Record<string, [prompt: number, completion: number]> = { 'fake-1': [120_000, 30_000], 'grok-test': [40_000, 10_000] };

/** The fake endpoint's model: one short answer, and the tokens it took. */
function answer(body: any): string[] {
  const [prompt, completion] = TOKENS[body.model] ?? [0, 0];
  return [chunk({ role: 'assistant', content: `Counted on ${body.model}.` }), chunk({}, 'stop'), usageChunk(prompt, completion), DONE];
}

/** Saves a screenshot of the page and answers the serious and critical accessibility violations axe-core finds. */
async function shot(name: string, on: Page = page): Promise<string[]> {
  await on.screenshot({ path: `${ARTIFACTS}/console-${name}.png`, fullPage: true });
  return seriousViolations(on);
}

/** A script session whose agent starts a session (the first-session card asks the user) and replies with its reply. */
async function leadSession(title: string, worker: string) {
  return user.scriptSession(
    title,
    [
      tool({ action: 'create_session', relay: 'this', title: worker, text: `reply hello from ${worker}`, wait_seconds: 120 }),
      'reply {{result.status}}: {{result.reply.text}}',
    ].join('\n'),
  );
}

/** Whether console/dist is missing or older than a source it is built from (the browser must test what is in src/). */
function consoleBuildIsStale(): boolean {
  const built = `${root}console/dist/index.html`;
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  const sources = [
    ...readdirSync(`${root}console/src`, { recursive: true, encoding: 'utf8' }).map((file) => `${root}console/src/${file}`),
    ...['index.html', 'vite.config.ts', 'package.json'].map((file) => `${root}console/${file}`),
  ];
  return sources.some((file) => statSync(file).mtimeMs > builtAt);
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  if (consoleBuildIsStale()) {
    // npm ci builds it (the root postinstall); a checkout edited since, or installed before the console existed, not.
    const built = spawnSync('npm', ['run', 'build', '--workspace', '@relay/console'], { cwd: root, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('the console did not build');
  }
  openAi = await startFakeOpenAiApi({ answer, models: ['fake-1'] });
  const env = {
    RELAY_OPENAI_BASE_URL: openAi.url,
    RELAY_OPENAI_API_KEY: 'sk-console-test',
    RELAY_OPENAI_PRICES: JSON.stringify({ 'fake-1': { inputUsdPerMTok: 1, outputUsdPerMTok: 10 } }),
    RELAY_OPENAI_ENDPOINTS: JSON.stringify([{ id: 'grok', name: 'Grok', baseUrl: openAi.url, apiKey: 'xai-console-test', models: ['grok-test'] }]),
    RELAY_USAGE_ALLOWANCES: JSON.stringify({ openai: { monthlyTokens: 500_000, monthlyUsd: 1 } }),
    // A virtual clock at the real rate: the streaming test skips its script's wait (relay.jumpTo).
    RELAY_CLOCK: new Date().toISOString(),
  };
  [relay, browser] = await Promise.all([startRelay({ name: 'desk', env }), launchChromium()]);
  user = new RelayUser(relay, relay.userToken);
  // Numbers read as in en-US (1,500) whatever the machine's locale.
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
});

afterAll(async () => {
  await browser?.close();
  await user?.close();
  await relay?.stop();
  await openAi?.close();
});

describe('the web console', () => {
  let lead: { id: string; messageId: string };

  it('signs in with the user token and lists the sessions', async () => {
    lead = await leadSession('Lead', 'Worker');
    await page.goto(`${relay.gatewayUrl}/`);
    await page.getByLabel('User token').waitFor();
    expect(await shot('sign-in')).toEqual([]);
    await page.getByLabel('User token').fill(relay.userToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Lead' }).count(), { timeout: 15_000 }).toBe(1);
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === 'relay_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(await shot('sessions')).toEqual([]);
  });

  it('signs in once with a one-time link, as relay up prints it; the same link is refused the second time', async () => {
    // What relay up asks for its banner, with the first user's token.
    const made = await fetch(`${relay.gatewayUrl}/api/v1/sign-in-links`, { method: 'POST', headers: { authorization: `Bearer ${relay.userToken}` } });
    expect(made.status).toBe(200);
    const { url } = (await made.json()) as { url: string };
    expect(url).toMatch(/\/#link=rly_l_/);
    const first = await browser.newContext();
    const second = await browser.newContext();
    try {
      const linked = await first.newPage();
      await linked.goto(url);
      await expect.poll(() => linked.getByRole('link', { name: 'Lead' }).count(), { timeout: 15_000 }).toBe(1);
      expect(linked.url()).not.toContain('rly_l_');
      const cookie = (await first.cookies()).find((candidate) => candidate.name === 'relay_session');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
      expect(cookie?.value.startsWith('rly_u_')).toBe(true);
      expect(cookie?.value).not.toBe(relay.userToken);
      const bearer = { headers: { authorization: `Bearer ${decodeURIComponent(cookie!.value)}` } };
      expect((await fetch(`${relay.gatewayUrl}/api/v1/me`, bearer)).status).toBe(200);
      const again = await second.newPage();
      await again.goto(url);
      await expect.poll(() => again.getByText('used already or has expired').count(), { timeout: 15_000 }).toBe(1);
      await again.getByLabel('User token').waitFor();
      expect((await second.cookies()).some((candidate) => candidate.name === 'relay_session')).toBe(false);
      // Signing out ends the token the link made; the user's own token goes on working.
      await linked.getByRole('button', { name: 'Sign out' }).click();
      await linked.getByLabel('User token').waitFor({ timeout: 15_000 });
      expect((await fetch(`${relay.gatewayUrl}/api/v1/me`, bearer)).status).toBe(401);
      expect((await user.api('GET', '/api/v1/me')).status).toBe(200);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("shows the agent's card in the Inbox with a live count, and Allow there lets the agent's call go on", async () => {
    await user.pendingCard(lead.id);
    await expect.poll(() => page.locator('[data-inbox-count]').textContent(), { timeout: 15_000 }).toBe('1');
    await page.getByRole('link', { name: /^Inbox/ }).click();
    const card = page.locator('article.card').first();
    await expect.poll(() => card.textContent(), { timeout: 15_000 }).toContain('Worker');
    expect(await shot('inbox')).toEqual([]);
    await card.getByRole('button', { name: 'Allow' }).click();
    const turn = await user.finish(lead.id, lead.messageId);
    expect(turn.reply.text).toBe('done: hello from Worker');
    await expect.poll(() => page.getByText('Nothing is waiting for you.').count(), { timeout: 15_000 }).toBe(1);
    // The header's count comes with its own live update, which may land after the Inbox list's.
    await expect.poll(() => page.locator('[data-inbox-count]').count(), { timeout: 15_000 }).toBe(0);
  });

  it("opens the conversation at openUrl's path, with the reply and a message sent from the page", async () => {
    await page.goto(`${relay.gatewayUrl}/sessions/${encodeURIComponent(lead.id)}`);
    await expect.poll(() => page.locator('.messages').textContent(), { timeout: 15_000 }).toContain('done: hello from Worker');
    await page.getByRole('textbox', { name: 'Message' }).fill('reply second from the console');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.messages').textContent(), { timeout: 30_000 }).toContain('second from the console');
    expect(await shot('conversation')).toEqual([]);
  });

  it('streams a reply in while it is being written', async () => {
    await page.getByRole('textbox', { name: 'Message' }).fill('reply first part\nwait 8\nreply second part');
    await page.getByRole('button', { name: 'Send' }).click();
    const writing = page.locator('.message.writing');
    await expect.poll(() => writing.textContent(), { timeout: 15_000 }).toContain('first part');
    expect(await writing.textContent()).not.toContain('second part');
    expect(await shot('streaming')).toEqual([]);
    // Seen half-written: the script's 8 s wait between the parts is skipped.
    await relay.jumpTo(new Date(relay.now().getTime() + 8_000));
    // The reply as stored, not the in-flight one (also `.message.assistant`), which holds both parts just before.
    await expect.poll(() => page.locator('.message.assistant:not(.writing)').last().textContent(), { timeout: 30_000 }).toContain('first part\nsecond part');
    expect(await writing.count()).toBe(0);
  });

  it('picks up the next card by itself after the gateway restarts', async () => {
    await page.getByRole('link', { name: /^Inbox/ }).click();
    await relay.services.gateway.stop();
    relay.services.gateway.start();
    await expect
      .poll(async () => (await fetch(`${relay.gatewayUrl}/readyz`).catch(() => undefined))?.ok ?? false, { timeout: 60_000, interval: 250 })
      .toBe(true);
    const next = await leadSession('Second lead', 'Second worker');
    await user.pendingCard(next.id);
    await expect.poll(() => page.locator('[data-inbox-count]').textContent(), { timeout: 20_000 }).toBe('1');
    await expect.poll(() => page.locator('article.card').first().textContent(), { timeout: 15_000 }).toContain('Second worker');
    expect(await shot('after-restart')).toEqual([]);
    await page.locator('article.card').first().getByRole('button', { name: 'Deny' }).click();
    const turn = await user.finish(next.id, next.messageId);
    expect(turn.reply.text).not.toContain('hello from Second worker');
  });

  it('answers an ask in its conversation', async () => {
    const asker = await user.scriptSession(
      'Asker',
      `${tool({ action: 'ask', question: 'Ship it tonight?', options: ['Tonight', 'Wait'] })}\nreply {{result.question_id}}`,
    );
    const questionId = (await user.finish(asker.id, asker.messageId)).reply.text;
    await page.goto(`${relay.gatewayUrl}/sessions/${encodeURIComponent(asker.id)}`);
    const ask = page.locator(`[data-ask="${questionId}"]`);
    await ask.waitFor({ timeout: 15_000 });
    expect(await shot('ask')).toEqual([]);
    await ask.getByRole('button', { name: 'Wait' }).click();
    await expect.poll(async () => (await user.api('GET', `/api/v1/asks?session=${asker.id}`)).body.asks[0]?.status, { timeout: 15_000 }).toBe('answered');
    expect((await user.api('GET', `/api/v1/asks?session=${asker.id}`)).body.asks[0]).toMatchObject({ choice: 'Wait' });
    await expect.poll(() => ask.count(), { timeout: 15_000 }).toBe(0);
  });

  it("starts a session from the list, and answers its agent's question card in the conversation", async () => {
    await page.goto(`${relay.gatewayUrl}/`);
    await page.getByRole('button', { name: 'New session' }).click();
    const form = page.getByRole('form', { name: 'New session' });
    await form.getByLabel('Title').fill('Made here');
    await form.getByLabel('Provider').fill('script');
    await form.getByLabel('First prompt').fill('ask_user Which way? | Left | Right\nreply went {{answer}}');
    expect(await shot('new-session')).toEqual([]);
    await form.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'Made here' }).waitFor({ timeout: 15_000 });
    const card = page.locator('article.card', { hasText: 'Which way?' });
    await card.waitFor({ timeout: 15_000 });
    await card.getByRole('button', { name: 'Right' }).click();
    await expect.poll(() => page.locator('.message.assistant').last().textContent(), { timeout: 30_000 }).toContain('went Right');
  });

  it('unsubscribes from the watching chip', async () => {
    const worker = await user.scriptSession('Watched', 'reply ready');
    await user.finish(worker.id, worker.messageId);
    const watcher = await user.scriptSession('Watcher', tool({ action: 'subscribe', sessions: [worker.id] }));
    const card = await user.pendingCard(watcher.id);
    expect((await user.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
    await user.finish(watcher.id, watcher.messageId);
    // The list: the watched session has its badge, the watcher says how many it watches.
    await page.goto(`${relay.gatewayUrl}/`);
    const row = (id: string) => page.locator(`tr[data-session="${id}"]`);
    await expect.poll(() => row(worker.id).locator('.tag.watched').textContent(), { timeout: 15_000 }).toBe('watched');
    expect(await row(watcher.id).locator('.tag.watching').textContent()).toBe('watching 1 session');
    expect(await row(watcher.id).locator('.tag.watched').count()).toBe(0);
    expect(await shot('sessions-watching')).toEqual([]);
    await page.goto(`${relay.gatewayUrl}/sessions/${encodeURIComponent(watcher.id)}`);
    const chip = page.locator('details.chip', { hasText: 'watching' });
    await expect.poll(() => chip.locator('summary').textContent(), { timeout: 15_000 }).toBe('watching 1 session');
    await chip.locator('summary').click();
    // Its options in words.
    expect(await chip.locator('li').first().textContent()).toMatch(/^“Watched”: a question is asked, an error, a turn ends, .*all are idle/);
    expect(await shot('watching')).toEqual([]);
    await chip.getByRole('button', { name: 'Unsubscribe' }).click();
    await expect.poll(() => chip.count(), { timeout: 15_000 }).toBe(0);
    const listed = await user.api('GET', `/api/v1/sessions/${watcher.id}/subscriptions`);
    expect(listed.body.subscriptions.filter((subscription: { ended?: true }) => !subscription.ended)).toEqual([]);
  });

  it('shows a task with its health and the end of its output, and the relay mode as it is', async () => {
    const builder = await user.scriptSession('Builder', 'task echo "compiling"; echo "all 3 steps done"; exec sleep 600\nreply started {{result.taskId}}');
    await page.goto(`${relay.gatewayUrl}/sessions/${encodeURIComponent(builder.id)}`);
    // The command runs only on the owner's Allow, given here on the conversation's card.
    const card = page.locator('article.card').first();
    await card.getByRole('button', { name: 'Allow' }).click({ timeout: 30_000 });
    expect((await user.finish(builder.id, builder.messageId)).reply.text).toMatch(/^started \S+/);
    const tasks = page.getByRole('region', { name: 'Background tasks' });
    await expect.poll(() => tasks.locator('pre.tail').textContent(), { timeout: 15_000 }).toBe('compiling\nall 3 steps done');
    expect(await tasks.locator('summary').first().textContent()).toMatch(/running · (writing output|last output \d+ min ago)/);
    const mode = page.getByRole('group', { name: 'Relay mode' });
    expect(await mode.getByRole('button', { name: 'agent' }).getAttribute('aria-pressed')).toBe('true');
    expect(await shot('tasks')).toEqual([]);
    await mode.getByRole('button', { name: 'plan' }).click();
    await expect.poll(() => mode.getByRole('button', { name: 'plan' }).getAttribute('aria-pressed'), { timeout: 15_000 }).toBe('true');
    await page.goto(`${relay.gatewayUrl}/`);
    await expect.poll(() => page.locator(`tr[data-session="${builder.id}"] .tag.mode`).textContent(), { timeout: 15_000 }).toBe('plan mode');
    expect((await user.api('POST', `/api/v1/sessions/${builder.id}/archive`)).status).toBe(200);
  });

  it('cancels a schedule in the ⏰ list', async () => {
    const owner = await user.scriptSession(
      'Nightly owner',
      `${tool({ action: 'schedule', title: 'Nightly check', text: 'reply tick', every_minutes: 600 })}\nreply {{result.schedule_id}}`,
    );
    const scheduleId = (await user.finish(owner.id, owner.messageId)).reply.text;
    await page.goto(`${relay.gatewayUrl}/schedules`);
    const row = page.locator(`[data-schedule="${scheduleId}"]`);
    await row.waitFor({ timeout: 15_000 });
    expect(await shot('schedules')).toEqual([]);
    await row.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(0);
    const listed = await user.api('GET', '/api/v1/schedules');
    expect(listed.body.schedules.find((schedule: { id: string }) => schedule.id === scheduleId)).toMatchObject({ endReason: 'unscheduled' });
  });

  it("shows a schedule's firing in its conversation as a ⏰ row, drawn without an emoji font", async () => {
    // A time already past fires once, at once.
    const owner = await user.scriptSession('Missed owner', tool({ action: 'schedule', title: 'Missed check', text: 'reply tock', at: '2020-01-01T00:00:00Z' }));
    await user.finish(owner.id, owner.messageId);
    await page.goto(`${relay.gatewayUrl}/sessions/${encodeURIComponent(owner.id)}`);
    const row = page.locator('.messages [data-role="schedule"]');
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    // Read as text (a screen reader, a copy) it is the ⏰ row; on screen the ⏰ is an SVG icon.
    expect(await row.textContent()).toMatch(/^⏰Schedule:\[relay schedule \S+ "Missed check"/);
    expect(await row.locator('.row-mark svg').count()).toBe(1);
    await expect.poll(() => page.locator('.message.assistant').last().textContent(), { timeout: 30_000 }).toContain('tock');
    expect(await shot('schedule-row')).toEqual([]);
  });

  it('makes a pairing code', async () => {
    await page.goto(`${relay.gatewayUrl}/relays`);
    await page.getByRole('button', { name: 'Make a pairing code' }).click();
    const code = page.locator('[data-pairing-code]');
    await code.waitFor({ timeout: 15_000 });
    expect(await code.textContent()).toMatch(/\S{6,}/);
    expect(await shot('relays')).toEqual([]);
  });

  it('renames a session, moves it into a group and archives it from its page', async () => {
    await page.goto(`${relay.gatewayUrl}/sessions/${encodeURIComponent(lead.id)}`);
    await page.getByRole('button', { name: 'Rename or regroup' }).click();
    await page.getByRole('textbox', { name: 'Title' }).fill('Lead, renamed');
    await page.getByRole('textbox', { name: 'Group' }).fill('Release');
    expect(await shot('rename')).toEqual([]);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 }).toBe('Lead, renamed');
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('button', { name: 'Unarchive' }).waitFor({ timeout: 15_000 });
    const read = await user.api('GET', `/api/v1/sessions/${lead.id}?last=1`);
    expect(read.body.session).toMatchObject({ title: 'Lead, renamed', archived: true, group: { name: 'Release' } });
  });

  it("shows an admin the relay's settings and its users", async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor({ timeout: 15_000 });
    expect(await page.getByLabel('Agents may start and use sessions on this relay').isChecked()).toBe(true);
    expect(await shot('settings')).toEqual([]);
  });

  it("charts each provider's meters this month from the tokens its endpoint reported for real turns", async () => {
    // One turn on the openai provider, started from the console's form; one on the second endpoint, by the API.
    await page.goto(`${relay.gatewayUrl}/`);
    await page.getByRole('button', { name: 'New session' }).click();
    const form = page.getByRole('form', { name: 'New session' });
    await form.getByLabel('Title').fill('Metered');
    await form.getByLabel('Provider').fill('openai');
    await form.getByLabel('Model').fill('fake-1');
    await form.getByLabel('First prompt').fill('Count the words, please.');
    await form.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => page.locator('.message.assistant').last().textContent(), { timeout: 30_000 }).toContain('Counted on fake-1.');
    const grok = await user.api('POST', '/api/v1/sessions', { provider: 'grok', model: 'grok-test', title: 'Metered on Grok', text: 'Count these too.' });
    expect(grok.status, JSON.stringify(grok.body)).toBe(201);
    expect((await user.finish(grok.body.session.id, grok.body.message_id)).status).toBe('done');

    // With the keyboard: Tab along the header to Usage, Enter.
    await page.goto(`${relay.gatewayUrl}/`);
    for (let presses = 0; presses < 20 && (await page.evaluate(() => document.activeElement?.textContent?.trim())) !== 'Usage'; presses += 1)
      await page.keyboard.press('Tab');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor({ timeout: 15_000 });

    // The tokens chart: openai's 150,000 of its 500,000 allowance, grok's 50,000, on one scale (the allowance's).
    const tokens = page.locator('[data-chart="tokens"]');
    const bar = (chart: typeof tokens, provider: string) => chart.locator(`rect.used[data-provider="${provider}"]`);
    await expect.poll(() => bar(tokens, 'openai').getAttribute('data-value'), { timeout: 15_000 }).toBe('150000');
    expect(await bar(tokens, 'openai').locator('title').textContent()).toBe('openai: 150,000 tokens of 500,000 tokens (30%)');
    expect(await bar(tokens, 'openai').getAttribute('width')).toBe('30');
    expect(await bar(tokens, 'grok').locator('title').textContent()).toBe('grok: 50,000 tokens');
    expect(await bar(tokens, 'grok').getAttribute('width')).toBe('10');
    expect(await tokens.locator('line.allowance').getAttribute('x1')).toBe('100');
    expect(await tokens.getByRole('img', { name: 'openai: 150,000 tokens of 500,000 tokens (30%)' }).count()).toBe(1);
    // The cost chart: only openai's cost is known (its model has prices): 120,000 × US$1 + 30,000 × US$10 per million.
    const cost = page.locator('[data-chart="cost_usd"]');
    expect(await bar(cost, 'openai').locator('title').textContent()).toBe('openai: US$0.42 of US$1.00 (42%)');
    expect(await bar(cost, 'openai').getAttribute('width')).toBe('42');
    expect(await cost.locator('rect.used').count()).toBe(1);
    // The providers the relay does not account are listed as such, without a chart.
    expect(await tokens.locator('rect.used[data-provider="script"]').count()).toBe(0);
    expect(await page.locator('tr[data-provider="script"]').textContent()).toBe('scriptnot tracked—');
    expect(await page.locator('tr[data-provider="openai"] td').last().textContent()).toBe('150,000 tokens of 500,000 tokens (30%)US$0.42 of US$1.00 (42%)');
    expect(await shot('usage')).toEqual([]);
  });

  it("shows a conversation's Budget: what its tree spent, and the person's form sets the budget", async () => {
    const metered = (await user.api('GET', '/api/v1/sessions')).body.sessions.find((session: { title: string }) => session.title === 'Metered');
    await page.goto(`${relay.gatewayUrl}/sessions/${encodeURIComponent(metered.id)}`);
    const chip = page.locator('[data-budget]');
    await expect.poll(() => chip.locator('summary').textContent(), { timeout: 15_000 }).toBe('Tree spent $0.42 · no budget');
    await chip.locator('summary').click();
    const spent = chip.getByRole('table', { name: 'What the tree spent' });
    expect(await spent.locator('tbody tr').first().textContent()).toBe(`${metered.id.slice(0, 8)}deskopenai1150,000$0.42`);
    expect(await spent.locator('tbody tr').last().textContent()).toBe('Total1150,000$0.42');

    const form = chip.getByRole('form', { name: "This conversation's budget" });
    await form.getByLabel('US$').fill('0.5');
    await form.getByLabel('sessions').fill('3');
    await form.getByRole('button', { name: 'Set budget' }).click();
    await expect.poll(() => chip.locator('summary').textContent(), { timeout: 15_000 }).toBe('Budget: $0.42 of $0.50 (84 %), 0 of 3 sessions (0 %)');
    expect((await user.api('GET', `/api/v1/sessions/${metered.id}/tree-usage`)).body.budgets[0].limits).toEqual({
      costUsd: 0.5,
      tokens: null,
      minutes: null,
      sessions: 3,
    });
    // At 84 % the owner's card shows in the conversation.
    await page.getByText('Budget 80 % used for "Metered"').waitFor({ timeout: 15_000 });
    expect(await shot('budget')).toEqual([]);

    // Removed from the form; its card, decided, changes nothing more.
    await form.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => chip.locator('summary').textContent(), { timeout: 15_000 }).toBe('Tree spent $0.42 · no budget');
    const card = (await user.api('GET', `/api/v1/cards?session=${metered.id}&pending=1`)).body.cards[0];
    expect((await user.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);
  });

  it('reads in dark mode on a phone', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${relay.gatewayUrl}/`);
    await page.getByRole('button', { name: 'Archived' }).click();
    await page.getByRole('link', { name: 'Lead, renamed' }).waitFor({ timeout: 15_000 });
    expect(await shot('phone-dark')).toEqual([]);
    await page.getByRole('link', { name: 'Lead, renamed' }).click();
    await page.getByRole('heading', { name: 'Lead, renamed' }).waitFor({ timeout: 15_000 });
    expect(await shot('phone-dark-conversation')).toEqual([]);
    await page.goto(`${relay.gatewayUrl}/usage`);
    await page.locator('rect.used[data-provider="openai"]').first().waitFor({ timeout: 15_000 });
    expect(await shot('phone-dark-usage')).toEqual([]);
  });

  it('signs in from a sign-in link (the token in the fragment), takes the token out of the address, and signs out', async () => {
    const fresh = await browser.newContext();
    try {
      const other = await fresh.newPage();
      await other.goto(`${relay.gatewayUrl}/#token=${encodeURIComponent(relay.userToken)}`);
      await other.getByRole('heading', { name: 'Sessions' }).waitFor({ timeout: 15_000 });
      expect(other.url()).toBe(`${relay.gatewayUrl}/`);
      expect((await fresh.cookies()).find((cookie) => cookie.name === 'relay_session')).toMatchObject({ httpOnly: true });
      await other.getByRole('button', { name: 'Sign out' }).click();
      await other.getByLabel('User token').waitFor({ timeout: 15_000 });
      expect((await fresh.cookies()).find((cookie) => cookie.name === 'relay_session')).toBeUndefined();
    } finally {
      await fresh.close();
    }
  });
});

describe('the web console for a member', () => {
  let member: RelayUser;
  let context: BrowserContext;
  let memberPage: Page;

  beforeAll(async () => {
    const added = await user.api('POST', '/api/v1/users', { name: 'Bob', role: 'member' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    member = new RelayUser(relay, added.body.token);
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    memberPage = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await member?.close();
  });

  it('shows a member only their own sessions, cards and schedules, and no Users or relay-wide settings', async () => {
    // The admin has a waiting card and an active schedule too; the member sees neither.
    const adminLead = await leadSession('Admin lead', 'Admin worker');
    await user.pendingCard(adminLead.id);
    const adminSchedule = await user.scriptSession(
      'Admin nightly owner',
      `${tool({ action: 'schedule', title: 'Admin nightly', text: 'reply tick', every_minutes: 600 })}\nreply {{result.schedule_id}}`,
    );
    const adminScheduleId = (await user.finish(adminSchedule.id, adminSchedule.messageId)).reply.text;
    const notes = await member.scriptSession('Bob notes', 'reply noted');
    await member.finish(notes.id, notes.messageId);
    const bobLead = await member.scriptSession(
      'Bob lead',
      tool({ action: 'create_session', relay: 'this', title: 'Bob worker', text: 'reply hi', wait_seconds: 120 }),
    );
    await member.pendingCard(bobLead.id);
    const bobSchedule = await member.scriptSession(
      'Bob daily owner',
      `${tool({ action: 'schedule', title: 'Bob daily', text: 'reply tick', every_minutes: 1440 })}\nreply {{result.schedule_id}}`,
    );
    const bobScheduleId = (await member.finish(bobSchedule.id, bobSchedule.messageId)).reply.text;

    await memberPage.goto(`${relay.gatewayUrl}/#token=${encodeURIComponent(member.token)}`);
    await memberPage.getByRole('heading', { name: 'Sessions' }).waitFor({ timeout: 15_000 });
    const nav = memberPage.getByRole('navigation', { name: 'Console' });
    // No Settings (the relay's settings and users are an admin's), but their own Notifications; the Inbox counts the
    // member's one card.
    await expect
      .poll(() => nav.getByRole('link').allTextContents(), { timeout: 15_000 })
      .toEqual(['Sessions', 'Inbox1', '⏰ Schedules', 'Paired relays', 'Usage', 'Notifications']);
    expect(await memberPage.locator('header .me').textContent()).toContain('Bob (member)');
    await expect.poll(() => memberPage.getByRole('link', { name: 'Bob notes' }).count(), { timeout: 15_000 }).toBe(1);
    expect(await memberPage.getByRole('link', { name: 'Bob lead' }).count()).toBe(1);
    expect(await memberPage.getByRole('link', { name: 'Admin lead' }).count()).toBe(0);
    expect(await memberPage.getByRole('link', { name: 'Lead', exact: true }).count()).toBe(0);
    expect(await shot('member-sessions', memberPage)).toEqual([]);

    await nav.getByRole('link', { name: /^Inbox/ }).click();
    const cards = memberPage.locator('article.card');
    await expect.poll(() => cards.count(), { timeout: 15_000 }).toBe(1);
    expect(await cards.first().textContent()).toContain('Bob worker');
    expect(await memberPage.locator('main').textContent()).not.toContain('Admin worker');
    expect(await shot('member-inbox', memberPage)).toEqual([]);

    await nav.getByRole('link', { name: /Schedules$/ }).click();
    await memberPage.locator(`[data-schedule="${bobScheduleId}"]`).waitFor({ timeout: 15_000 });
    expect(await memberPage.locator(`[data-schedule="${adminScheduleId}"]`).count()).toBe(0);
    expect(await memberPage.getByRole('heading', { level: 1 }).textContent()).toBe('⏰ Schedules');
    expect(await shot('member-schedules', memberPage)).toEqual([]);

    await nav.getByRole('link', { name: 'Paired relays' }).click();
    await memberPage.getByText('Only an admin of this relay can pair it').waitFor({ timeout: 15_000 });
    expect(await memberPage.getByRole('button', { name: 'Make a pairing code' }).count()).toBe(0);
    expect(await memberPage.getByLabel("Accept prompts from other relays' agents").isDisabled()).toBe(true);
    expect(await shot('member-relays', memberPage)).toEqual([]);

    // An admin's page, reached by its address: a plain "for admins only", no settings, no users, no error.
    await memberPage.goto(`${relay.gatewayUrl}/settings`);
    await memberPage.getByRole('heading', { name: 'For admins only' }).waitFor({ timeout: 15_000 });
    expect(await memberPage.getByRole('heading', { name: 'Users' }).count()).toBe(0);
    expect(await memberPage.getByRole('form', { name: 'Relay settings' }).count()).toBe(0);
    expect(await memberPage.locator('.error').count()).toBe(0);
    expect(await shot('member-settings', memberPage)).toEqual([]);
  });
});

describe('the web console with more sessions than a page', () => {
  let pat: RelayUser;
  let context: BrowserContext;
  let patPage: Page;

  beforeAll(async () => {
    const added = await user.api('POST', '/api/v1/users', { name: 'Pat', role: 'member' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    pat = new RelayUser(relay, added.body.token);
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    patPage = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await pat?.close();
  });

  it('lists a page of 100 with the total, moves to the next page and back, and the Inbox names a session past the first page', async () => {
    // The session whose card waits is the least recently active: the listing's first page does not hold it.
    const lead = await pat.scriptSession(
      'Pat lead',
      tool({ action: 'create_session', relay: 'this', title: 'Pat worker', text: 'reply hi', wait_seconds: 120 }),
    );
    await pat.pendingCard(lead.id);
    // External sessions cost no turn: 104 of them and the lead are 105 sessions, 5 past the first page. One after
    // another, so the listing's order (the most recently active first) is the order they were made in.
    for (let n = 1; n <= 104; n++) {
      const made = await pat.api('POST', '/api/v1/sessions', { external: true, title: `Pat ${String(n).padStart(3, '0')}` });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }

    await patPage.goto(`${relay.gatewayUrl}/#token=${encodeURIComponent(pat.token)}`);
    const pager = patPage.getByRole('navigation', { name: 'Pages of sessions' });
    await expect.poll(() => pager.getByRole('status').textContent(), { timeout: 15_000 }).toBe('Sessions 1–100 of 105 · page 1 of 2');
    expect(await patPage.locator('table.sessions tbody tr').count()).toBe(100);
    // The most recently active first: the newest external session heads the page, the lead is not on it.
    expect(await patPage.locator('table.sessions tbody tr').first().textContent()).toContain('Pat 104');
    expect(await patPage.getByRole('link', { name: 'Pat lead' }).count()).toBe(0);
    expect(await pager.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
    expect(await shot('sessions-page-1', patPage)).toEqual([]);

    await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => pager.getByRole('status').textContent(), { timeout: 15_000 }).toBe('Sessions 101–105 of 105 · page 2 of 2');
    expect(await patPage.locator('table.sessions tbody tr').count()).toBe(5);
    expect(await patPage.getByRole('link', { name: 'Pat lead' }).count()).toBe(1);
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    expect(await shot('sessions-page-2', patPage)).toEqual([]);

    await pager.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => pager.getByRole('status').textContent(), { timeout: 15_000 }).toBe('Sessions 1–100 of 105 · page 1 of 2');

    await patPage
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: /^Inbox/ })
      .click();
    const card = patPage.locator('article.card');
    await expect.poll(() => card.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => card.getByRole('link', { name: 'Pat lead' }).count(), { timeout: 15_000 }).toBe(1);
  });
});

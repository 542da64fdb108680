// The person's side, as a new user meets it (issue 40), in the console (Debian's chromium driven headless by
// playwright-core, at 1280 px and 390 px, light and dark) and through the real `relay` CLI, against the shared relay:
// the newest message and the reply being written stay above the message box; a session's status reads the same in
// the list, the conversation, `relay sessions`, `relay session show` and read_session — working, waiting for you
// (card, ask), idle, failed with its error, stopped (until the next turn); a command's card is decided as an approval; an external session's page
// has no Send; tabs are titled by their page; the Schedules table folds on a phone; "OAR" is explained; and the CLI's
// defects: an external session's default title, --message by an id prefix, one card per allow/deny, the relay's own
// sentence without HTTP noise, and a card answered with a choice and words. Screenshots go to .relay/e2e-artifacts/.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, seriousViolations } from '../harness/browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRelayCli } from '../harness/relay-cli.ts';
import type { RelayClient } from '../harness/relay.ts';
import { callTool, RelayUser, toolStep as tool } from '../harness/relay-user.ts';
import { sharedRelay } from '../harness/shared-relay.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ARTIFACTS = `${root}.relay/e2e-artifacts`;

let relay: RelayClient;
let user: RelayUser;
let browser: Browser;
let page: Page;

const cli = (...args: string[]) => runRelayCli(relay, relay.userToken, ...args);
const cliJson = async (...args: string[]) => {
  const result = await cli(...args, '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, any>;
};

/** A screenshot, and the serious and critical accessibility violations axe-core finds on the page. */
async function shot(name: string): Promise<string[]> {
  await page.screenshot({ path: `${ARTIFACTS}/person-${name}.png`, fullPage: false });
  return seriousViolations(page);
}

/** Whether the element's bottom edge is above the message box's top edge, and inside the window (seen, not covered). */
async function seenAboveComposer(selector: string): Promise<boolean> {
  return page.evaluate((target) => {
    const element = [...document.querySelectorAll(target)].at(-1);
    const composer = document.querySelector('form.composer');
    if (!element || !composer) return false;
    const box = element.getBoundingClientRect();
    return box.bottom <= composer.getBoundingClientRect().top + 1 && box.top >= 0 && box.bottom <= window.innerHeight;
  }, selector);
}

const open = (path: string) => page.goto(`${relay.gatewayUrl}${path}`);

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  [relay, browser] = await Promise.all([sharedRelay(), launchChromium()]);
  user = new RelayUser(relay, relay.userToken);
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  await page.goto(`${relay.gatewayUrl}/#token=${encodeURIComponent(relay.userToken)}`);
  await page.getByRole('heading', { name: 'Sessions' }).waitFor({ timeout: 15_000 });
});

afterAll(async () => {
  await browser?.close();
  await user?.close();
  await relay?.stop();
});

describe('the conversation on screen', () => {
  it('keeps the newest message, and the reply while it is written, above the message box', async () => {
    // A reply long enough to fill more than the window, even at 1280 px.
    const chat = await user.scriptSession('Long talk', `reply ${'a long line of words that wraps '.repeat(300)}`);
    await user.finish(chat.id, chat.messageId);
    for (const phone of [false, true]) {
      if (phone) await page.setViewportSize({ width: 390, height: 844 });
      await open(`/sessions/${encodeURIComponent(chat.id)}`);
      await page.getByRole('textbox', { name: 'Message' }).fill(`reply newest ${phone ? 'phone' : 'desk'}\nwait 3\nreply done`);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.locator('.message.writing').textContent(), { timeout: 15_000 }).toContain(`newest ${phone ? 'phone' : 'desk'}`);
      expect(await seenAboveComposer('.message.writing')).toBe(true);
      await expect.poll(() => page.locator('.message.assistant:not(.writing)').last().textContent(), { timeout: 30_000 }).toContain('done');
      await expect.poll(() => seenAboveComposer('.message.assistant:not(.writing)'), { timeout: 5_000 }).toBe(true);
      expect(await shot(phone ? 'newest-phone' : 'newest')).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('titles each tab by its page and the relay, and a conversation by its session', async () => {
    const chat = await user.scriptSession('Titled talk', 'reply hi');
    await user.finish(chat.id, chat.messageId);
    await open('/');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toMatch(/^Sessions · relay /);
    await open('/schedules');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toMatch(/^Schedules · relay /);
    await open(`/sessions/${encodeURIComponent(chat.id)}`);
    await expect.poll(() => page.title(), { timeout: 15_000 }).toMatch(/^Titled talk · relay /);
  });

  it('offers no Send on an external session, and says where to write to it; relay say explains without HTTP noise', async () => {
    const created = await cliJson('session', 'create', '--external', '--title', 'My editor');
    await open(`/sessions/${encodeURIComponent(created.session.id)}`);
    await page.locator('[data-external-note]').waitFor({ timeout: 15_000 });
    expect(await page.getByRole('button', { name: 'Send' }).count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
    expect(await shot('external')).toEqual([]);
    const said = await cli('say', created.session.id, 'hello');
    expect(said.code).toBe(1);
    expect(said.stderr).toContain('is an external session');
    expect(said.stderr).not.toMatch(/HTTP \d{3}|POST \/api/);
  });

  it('explains OAR on a schedule row', async () => {
    const owner = await user.scriptSession('Missed owner', tool({ action: 'schedule', title: 'Missed check', text: 'reply tock', at: '2020-01-01T00:00:00Z' }));
    await user.finish(owner.id, owner.messageId);
    await open(`/sessions/${encodeURIComponent(owner.id)}`);
    const abbr = page.locator('.messages [data-role="schedule"] abbr');
    await expect.poll(() => abbr.count(), { timeout: 30_000 }).toBe(1);
    expect(await abbr.textContent()).toBe('OAR');
    expect(await abbr.getAttribute('title')).toMatch(/^OAR: the relay software\./);
  });

  it('folds the Schedules table on a phone, in dark mode', async () => {
    const owner = await user.scriptSession(
      'Nightly owner',
      `${tool({ action: 'schedule', title: 'Nightly check of the whole release train', text: 'reply tick', every_minutes: 600 })}\nreply {{result.schedule_id}}`,
    );
    const scheduleId = (await user.finish(owner.id, owner.messageId)).reply.text;
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await open('/schedules');
    await page.locator(`[data-schedule="${scheduleId}"]`).waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await shot('schedules-phone-dark')).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('states at a glance', () => {
  it('says waiting for you (card) while a turn waits on a card, then working, idle, failed with the error and stopped — in the console, the CLI and read_session', async () => {
    const waiting = await user.scriptSession('Held on a card', 'ask_user Which way? | Left | Right\nreply went {{answer}}');
    await user.pendingCard(waiting.id);
    const asker = await user.scriptSession('Asked you', `${tool({ action: 'ask', question: 'Ship it tonight?', options: ['Tonight', 'Wait'] })}\nreply asked`);
    await user.finish(asker.id, asker.messageId);
    const failing = await user.scriptSession('Broke down', 'fail Out of coffee');
    await user.finish(failing.id, failing.messageId);
    const quiet = await user.scriptSession('Quiet one', 'reply done');
    await user.finish(quiet.id, quiet.messageId);
    const halted = await user.scriptSession('Halted one', 'reply partial\nwait 600\nreply never');
    // Stopped once it runs (a stop reaches a running turn), parked on its wait.
    await expect.poll(async () => (await user.api('GET', `/api/v1/sessions/${halted.id}?last=1`)).body.inFlight, { timeout: 30_000 }).toBe('partial');
    expect((await cli('session', 'stop', halted.id)).code).toBe(0);
    expect((await user.finish(halted.id, halted.messageId)).status).toBe('stopped');
    await user.settled(halted.id);

    // The console's list.
    await open('/');
    const status = (id: string) => page.locator(`tr[data-session="${id}"] [data-status]`);
    await expect.poll(() => status(waiting.id).textContent(), { timeout: 15_000 }).toBe('waiting for you (card)');
    expect(await status(asker.id).textContent()).toBe('waiting for you (ask)');
    // The list knows how each session's last turn ended: failed with its error, stopped.
    expect(await status(failing.id).textContent()).toBe('failed: Out of coffee');
    expect(await status(halted.id).textContent()).toBe('stopped');
    expect(await status(quiet.id).textContent()).toBe('idle');
    expect(await shot('states')).toEqual([]);
    // The conversation's head says the same, and a failed turn's error.
    await open(`/sessions/${encodeURIComponent(failing.id)}`);
    await expect.poll(() => page.locator('.page-head [data-status]').textContent(), { timeout: 15_000 }).toMatch(/^failed: .*Out of coffee/);
    await open(`/sessions/${encodeURIComponent(waiting.id)}`);
    await expect.poll(() => page.locator('.page-head [data-status]').textContent(), { timeout: 15_000 }).toBe('waiting for you (card)');

    // The CLI.
    const table = await cli('sessions');
    expect(table.stdout).toMatch(/Held on a card\s+waiting for you \(card\)/);
    expect(table.stdout).toMatch(/Asked you\s+waiting for you \(ask\)/);
    expect(table.stdout).toMatch(/Quiet one\s+idle/);
    expect(table.stdout).toMatch(/Broke down\s+failed: Out of coffee/);
    expect(table.stdout).toMatch(/Halted one\s+stopped/);
    const shown = await cli('session', 'show', failing.id);
    expect(shown.stdout.split('\n')[0]).toMatch(/ · failed: .*Out of coffee/);

    // read_session, as an agent reads it.
    const agent = await user.externalAgent('Reader');
    const read = await callTool(agent, { action: 'read_session', relay: 'this', session: waiting.id });
    expect(read.status).toMatchObject({ name: 'waiting_for_you', words: 'waiting for you (card)', waitingFor: { cards: 1, asks: 0 } });
    const failed = await callTool(agent, { action: 'read_session', relay: 'this', session: failing.id });
    expect(failed.status).toMatchObject({ name: 'failed' });
    expect(failed.status.error).toContain('Out of coffee');
    const stopped = await callTool(agent, { action: 'read_session', relay: 'this', session: halted.id });
    expect(stopped.status).toEqual({ name: 'stopped', words: 'stopped' });

    // Failed and stopped give way to the next turn: a message sent there, and once its turn is done, idle.
    await user.finish(halted.id, await user.say(halted.id, 'reply going again'));
    await user.finish(failing.id, await user.say(failing.id, 'reply coffee found'));
    await open('/');
    await expect.poll(() => status(halted.id).textContent(), { timeout: 15_000 }).toBe('idle');
    expect(await status(failing.id).textContent()).toBe('idle');

    // The card answered: working until the reply, then idle.
    const card = await user.pendingCard(waiting.id);
    expect((await cli('answer', card.id, 'Right')).code).toBe(0);
    await user.settled(waiting.id);
    await expect.poll(async () => (await user.api('GET', `/api/v1/sessions/${waiting.id}?last=1`)).body.status.name, { timeout: 15_000 }).toBe('idle');
  });
});

describe('cards and the CLI', () => {
  it("decides a command's card as the approval it is: Allow and Deny in the console, no text box; relay allow takes it", async () => {
    const builder = await user.scriptSession('Builder', 'task echo "built"\nreply started');
    const card = await user.pendingCard(builder.id);
    expect(card.kind).toBe('approval');
    await open(`/sessions/${encodeURIComponent(builder.id)}`);
    const article = page.locator(`article.card[data-card="${card.id}"]`);
    await article.waitFor({ timeout: 15_000 });
    expect(await article.getByRole('button', { name: 'Allow' }).count()).toBe(1);
    expect(await article.getByRole('button', { name: 'Deny' }).count()).toBe(1);
    expect(await article.getByRole('textbox').count()).toBe(0);
    const allowed = await cli('allow', card.id);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect((await user.finish(builder.id, builder.messageId)).reply.text).toBe('started');
  });

  it('refuses more than one card id to allow or deny with what to type', async () => {
    const refused = await cli('deny', 'a', 'b');
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toContain('unknown command');
    expect(refused.stderr).toContain('relay deny CARD');
  });

  it('answers a card with a choice and words, and {{answer}} has both', async () => {
    const asked = await user.scriptSession('Chooser', 'ask_user Which way? | Left | Right\nreply went {{answer}}');
    const card = await user.pendingCard(asked.id);
    const answered = await cli('answer', card.id, 'but', 'slowly', '--choice', 'Right');
    expect(answered.code, answered.stderr).toBe(0);
    expect((await user.finish(asked.id, asked.messageId)).reply.text).toBe('went Right: but slowly');
  });

  it('names an external session made without --title so that its name is its own', async () => {
    const first = await cliJson('session', 'create', '--external');
    const second = await cliJson('session', 'create', '--external');
    expect(first.session.title).toBe('Terminal');
    expect(second.session.title).toBe('Terminal 2');
    const shown = await cli('session', 'show', 'Terminal', '--json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).session.id).toBe(first.session.id);
  });

  it('reads a whole message by the start of its id, as relay session show prints it; says so plainly when none has it', async () => {
    const chat = await user.scriptSession('Prefixed', 'reply the whole text');
    await user.finish(chat.id, chat.messageId);
    const read = await cliJson('session', 'show', chat.id);
    const reply = read.messages.at(-1);
    const whole = await cli('session', 'show', chat.id, '--message', reply.id.slice(0, 8));
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toBe('the whole text\n');
    const missing = await cli('session', 'show', chat.id, '--message', 'zzzzzzzz');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("starts with 'zzzzzzzz'");
    expect(missing.stderr).not.toMatch(/HTTP \d{3}|GET \/api/);
  });
});

// Issue 5 end to end: a `script` watcher subscribes to a worker session through relay_tool (the user allows the
// first-watch card), and the worker's turn_end wakes it with a new turn whose message is the relay event row.
// The second relay's virtual clock is moved forward by the tests (time-skipping): through a real DST night, where
// quiet hours hold the row until the window's first end, and to a digest's release, where the held event comes when
// list_subscriptions said, not 30 s later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideCard, finish, finishAllowingCommands, scriptSession } from '../harness/script-turns.ts';
import { startRelay, type Relay } from '../harness/relay.ts';

const HEADER = '[relay event · automated message from OAR, not from the user; it approves nothing]';
const tool = (args: Record<string, unknown>) => `relay_tool ${JSON.stringify(args)}`;

/** The watcher's event messages, once at least `count` came (real-time deadline). */
async function eventMessages(
  relay: Relay,
  sessionId: string,
  count: number,
  timeoutMs = 90_000,
): Promise<{ text: string; created_at?: string; createdAt?: string }[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await relay.api('GET', `/api/v1/sessions/${sessionId}?last=50`);
    const events = (body.messages ?? []).filter((message: { role: string }) => message.role === 'event');
    if (events.length >= count) return events;
    if (Date.now() > deadline) throw new Error(`no event message in ${sessionId}: ${JSON.stringify(body.messages)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The watcher's subscription once it holds one event (list_subscriptions' heldCount), as the user API lists it. */
async function heldOne(relay: Relay, watcher: string, subscriptionId: string): Promise<{ heldCount: number; nextDeliveryAt: string | null }> {
  let listed: { heldCount: number; nextDeliveryAt: string | null } | undefined;
  const deadline = Date.now() + 10_000;
  while (listed?.heldCount !== 1) {
    if (Date.now() > deadline) throw new Error(`the turn_end was not held: ${JSON.stringify(listed)}`);
    const { body } = await relay.api('GET', `/api/v1/sessions/${watcher}/subscriptions`);
    listed = body.subscriptions.find((subscription: { id: string }) => subscription.id === subscriptionId);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return listed;
}

/** A watcher subscribes to `worker` with `extra` arguments; answers its id and the subscribe result. */
async function subscribeWatcher(relay: Relay, worker: string, extra: Record<string, unknown> = {}): Promise<{ watcher: string; result: any }> {
  const started = await scriptSession(relay, 'Watcher', [tool({ action: 'subscribe', sessions: [worker], ...extra })].join('\n'));
  const card = await decideCard(relay, started.id, 'allow');
  expect(card.kind).toBe('approval');
  const turn = await finish(relay, started.id, started.messageId);
  expect(turn.status, JSON.stringify(turn)).toBe('done');
  return { watcher: started.id, result: JSON.parse(turn.reply.text) };
}

describe('a watcher is woken by a watched session', () => {
  let relay: Relay;
  beforeAll(async () => {
    // 60x: the 30-second coalescing window is half a second.
    relay = await startRelay({ name: 'desk', env: { RELAY_CLOCK: `${new Date().toISOString()}@60x` } });
  });
  afterAll(async () => {
    await relay?.stop();
  });

  it('turn_end of the worker starts a new turn of the watcher with the relay event row', async () => {
    const worker = await scriptSession(relay, 'Review: server/', 'reply ready');
    await finish(relay, worker.id, worker.messageId);
    const { watcher, result } = await subscribeWatcher(relay, worker.id);
    expect(result).toMatchObject({
      ok: true,
      relay: 'desk',
      subscription: {
        sessions: [{ id: worker.id, title: 'Review: server/' }],
        events: ['question_asked', 'error', 'turn_end', 'subagent_finished', 'task_failed', 'stalled', 'all_idle'],
        once: false,
        stalledMinutes: 15,
      },
    });
    expect(result.summary).toBe(`subscribe → desk: 1 session (${result.subscription.id})`);

    const sent = await relay.api('POST', `/api/v1/sessions/${worker.id}/messages`, { text: 'reply Found 4 places without input checks' });
    expect(sent.status).toBe(201);
    await finish(relay, worker.id, sent.body.message_id);

    const [event] = await eventMessages(relay, watcher, 1);
    const lines = event!.text.split('\n');
    expect(lines[0]).toBe(HEADER);
    expect(lines).toContain(`[relay event] session "Review: server/" (${worker.id.slice(0, 4)}…): turn_end (done) "Found 4 places without input checks"`);

    const listed = await relay.api('POST', `/api/v1/sessions/${watcher}/messages`, { text: tool({ action: 'list_subscriptions' }) });
    const turn = await finish(relay, watcher, listed.body.message_id);
    expect(JSON.parse(turn.reply.text).subscriptions).toEqual([expect.objectContaining({ id: result.subscription.id, heldCount: 0, nextDeliveryAt: null })]);
  });

  it('a task that exits non-zero wakes the watcher with task_failed, and all_idle follows once nothing runs', async () => {
    const worker = await scriptSession(relay, 'Tests', 'reply ready');
    await finish(relay, worker.id, worker.messageId);
    const { watcher } = await subscribeWatcher(relay, worker.id);
    const sent = await relay.api('POST', `/api/v1/sessions/${worker.id}/messages`, { text: 'task echo checking; exit 3\nreply started the tests' });
    expect(sent.status).toBe(201);
    await finishAllowingCommands(relay, worker.id, sent.body.message_id);
    const label = `session "Tests" (${worker.id.slice(0, 4)}…)`;
    const deadline = Date.now() + 90_000;
    let rows: string[] = [];
    while (!rows.some((row) => row.startsWith('[relay event] all_idle')) && Date.now() < deadline) {
      rows = (await eventMessages(relay, watcher, 1)).flatMap((message) => message.text.split('\n'));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(rows).toContain(`[relay event] ${label}: turn_end (done) "started the tests"`);
    expect(rows.find((row) => row.includes('task_failed'))).toMatch(
      new RegExp(`^\\[relay event\\] session "Tests" \\(.{4}…\\): task_failed "echo checking; exit 3" \\(exit 3; task_id task_[0-9a-f]+\\)$`),
    );
    expect(rows.filter((row) => row.startsWith('[relay event] all_idle'))).toEqual([
      expect.stringMatching(/^\[relay event\] all_idle: no turn or task is running in the watched session \(subscription sub_[a-z0-9]+\)$/),
    ]);
  });

  it("the user lists the watcher's subscriptions and presses Unsubscribe", async () => {
    const worker = await scriptSession(relay, 'Docs', 'reply ok');
    await finish(relay, worker.id, worker.messageId);
    const { watcher, result } = await subscribeWatcher(relay, worker.id);
    const listed = await relay.api('GET', `/api/v1/sessions/${watcher}/subscriptions`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body).toEqual({ watcher, subscriptions: [expect.objectContaining({ id: result.subscription.id, heldCount: 0, nextDeliveryAt: null })] });
    const pressed = await relay.api('DELETE', `/api/v1/sessions/${watcher}/subscriptions/${result.subscription.id}`);
    expect(pressed.status, JSON.stringify(pressed.body)).toBe(200);
    expect(pressed.body).toEqual({ endedIds: [result.subscription.id] });
    const again = await relay.api('DELETE', `/api/v1/sessions/${watcher}/subscriptions/${result.subscription.id}`);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('REMOTE_RELAY_NOT_FOUND');
    const after = await relay.api('GET', `/api/v1/sessions/${watcher}/subscriptions`);
    expect(after.body.subscriptions).toEqual([expect.objectContaining({ id: result.subscription.id, ended: true, reason: 'unsubscribed' })]);
    const unknown = await relay.api('GET', '/api/v1/sessions/no-such-session/subscriptions');
    expect(unknown.status).toBe(404);
  });

  it("a new watcher looks at the old watcher's subscriptions, takes them over on a card, and ends them", async () => {
    const worker = await scriptSession(relay, 'Build', 'reply ok');
    await finish(relay, worker.id, worker.messageId);
    const { watcher: old, result } = await subscribeWatcher(relay, worker.id, { digest_minutes: 30 });
    expect(result.summary).toBe(`subscribe → desk: 1 session, digest every 30 min (${result.subscription.id})`);
    const started = await scriptSession(
      relay,
      'New watcher',
      [
        tool({ action: 'list_subscriptions', watcher: old }),
        'reply {{result.subscriptions}}',
        tool({ action: 'transfer_subscriptions', from: old }),
        'reply {{result.summary}}',
        tool({ action: 'unsubscribe', subscription_id: 'all' }),
        'reply {{result.ended}}',
        tool({ action: 'list_subscriptions' }),
        'reply {{result.subscriptions}}',
      ].join('\n'),
    );
    const card = await decideCard(relay, started.id, 'allow');
    expect(card.title).toContain('Move 1 subscription of "Watcher"');
    const turn = await finish(relay, started.id, started.messageId);
    const [listed, moved, ended, after] = turn.reply.text.split('\n');
    expect(JSON.parse(listed)).toEqual([expect.objectContaining({ id: result.subscription.id, digestMinutes: 30, heldCount: 0, nextDeliveryAt: null })]);
    expect(moved).toBe(`transfer_subscriptions → desk: 1 subscription from ${old}`);
    expect(JSON.parse(ended)).toEqual([result.subscription.id]);
    expect(JSON.parse(after)).toEqual([expect.objectContaining({ id: result.subscription.id, ended: true, reason: 'unsubscribed' })]);
  });

  it('no echo: a turn the watcher prompted and got the reply of does not wake it; one it did not wait for does', async () => {
    const worker = await scriptSession(relay, 'Helper', 'reply ok');
    await finish(relay, worker.id, worker.messageId);
    // turn_end only: the default events' all_idle would rightly wake it when the worker goes idle after each turn.
    const { watcher } = await subscribeWatcher(relay, worker.id, { events: ['turn_end'] });
    const waited = await relay.api('POST', `/api/v1/sessions/${watcher}/messages`, {
      text: [tool({ action: 'send', session: worker.id, relay: 'this', text: 'reply first answer', wait_seconds: 120 }), 'reply {{result.status}}'].join('\n'),
    });
    expect((await finish(relay, watcher, waited.body.message_id)).reply.text).toBe('done');
    const unwaited = await relay.api('POST', `/api/v1/sessions/${watcher}/messages`, {
      text: [tool({ action: 'send', session: worker.id, relay: 'this', text: 'reply second answer', wait_seconds: 0 }), 'reply sent'].join('\n'),
    });
    await finish(relay, watcher, unwaited.body.message_id);
    const events = await eventMessages(relay, watcher, 1);
    // A marker instead of a pause: a later turn_end of the worker, prompted by the user. The worker's events reach the
    // watcher in order, so once the marker's row is there, a wrongly delivered first turn_end would be there too.
    const marker = await relay.api('POST', `/api/v1/sessions/${worker.id}/messages`, { text: 'reply third answer' });
    await finish(relay, worker.id, marker.body.message_id);
    const all = await eventMessages(relay, watcher, 2);
    expect(all).toHaveLength(2);
    expect(events[0]!.text).toContain('turn_end (done) "second answer"');
    expect(all[1]!.text).toContain('turn_end (done) "third answer"');
    for (const event of all) expect(event.text).not.toContain('first answer');
  });

  it('question_asked comes at once, while the watched turn waits for the answer', async () => {
    const worker = await scriptSession(relay, 'Asker', 'reply ok');
    await finish(relay, worker.id, worker.messageId);
    const { watcher } = await subscribeWatcher(relay, worker.id, { events: ['question_asked'] });
    const sent = await relay.api('POST', `/api/v1/sessions/${worker.id}/messages`, { text: 'ask_user Ship tonight? | Yes | No\nreply {{answer}}' });
    const [event] = await eventMessages(relay, watcher, 1);
    expect(event!.text).toContain(`[relay event] session "Asker" (${worker.id.slice(0, 4)}…): question_asked "Ship tonight?"`);
    const { body } = await relay.api('GET', `/api/v1/cards?session=${worker.id}&pending=1`);
    await relay.api('POST', `/api/v1/cards/${body.cards[0].id}`, { decision: 'answer', answer: 'Yes' });
    expect((await finish(relay, worker.id, sent.body.message_id)).status).toBe('done');
  });

  it('refuses exclude with a list of sessions, and makes nothing', async () => {
    const worker = await scriptSession(relay, 'Other', 'reply ok');
    const started = await scriptSession(
      relay,
      'Careless watcher',
      [tool({ action: 'subscribe', sessions: [worker.id], exclude: ['abcd'] }), tool({ action: 'list_subscriptions' })].join('\n'),
    );
    const turn = await finish(relay, started.id, started.messageId);
    expect(JSON.parse(turn.reply.text).subscriptions).toEqual([]);
    const { body } = await relay.api('GET', `/api/v1/sessions/${started.id}?last=10`);
    expect(JSON.stringify(body)).not.toContain('sub_');
  });
});

describe('on a clock the tests move forward', () => {
  let relay: Relay;
  beforeAll(async () => {
    // 22:00 CEST on 24 October, inside the quiet window below from the start; the tests skip ahead (jumpTo).
    relay = await startRelay({ name: 'desk', env: { RELAY_CLOCK: '2026-10-24T20:00:00Z' } });
    // A skip passes the default 60-minute turn limit at once: no turn here may be cut by it.
    const settings = await relay.api('PATCH', '/api/v1/settings', { max_turn_minutes: 1440 });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  });
  afterAll(async () => {
    await relay?.stop();
  });

  describe('quiet hours across the night the clocks go back (Europe/Berlin, 2026-10-25)', () => {
    it('holds the turn_end until 02:30 comes the first time, then delivers it with the held line', async () => {
      const worker = await scriptSession(relay, 'Nightly', 'reply ready');
      await finish(relay, worker.id, worker.messageId);
      // turn_end only: all_idle (a default event) would be held with it and make the held line say 2 events.
      const { watcher, result } = await subscribeWatcher(relay, worker.id, {
        events: ['turn_end'],
        quiet_hours: { from: '21:00', to: '02:30', tz: 'europe/berlin' },
      });
      expect(result.subscription.quietHours).toEqual({ from: '21:00', to: '02:30', tz: 'Europe/Berlin' });

      const sent = await relay.api('POST', `/api/v1/sessions/${worker.id}/messages`, { text: 'reply Deployed.' });
      await finish(relay, worker.id, sent.body.message_id);
      await heldOne(relay, watcher, result.subscription.id);

      // The night passes in a moment: to two seconds before 02:30 CEST (00:30Z); the window ends on the clock's own.
      await relay.jumpTo('2026-10-25T00:29:58Z');
      const [event] = await eventMessages(relay, watcher, 1);
      expect(event!.text.split('\n')).toEqual([
        HEADER,
        'Held during quiet hours (21:00–02:30 Europe/Berlin): 1 event, delivered now that the window has ended; questions and errors came at once.',
        `[relay event] session "Nightly" (${worker.id.slice(0, 4)}…): turn_end (done) "Deployed."`,
      ]);
      // 02:30 CEST is 00:30Z; the second 02:30 (CET) would be 01:30Z. The row goes at the window's end (no 30-second
      // window after it: the digest case below shows that).
      const at = new Date((event!.created_at ?? event!.createdAt) as string).getTime();
      expect(at).toBeGreaterThanOrEqual(Date.parse('2026-10-25T00:30:00Z'));
      expect(at).toBeLessThan(Date.parse('2026-10-25T01:00:00Z'));
    });
  });

  describe('a digest comes at its due time, not 30 s later', () => {
    it('list_subscriptions shows when the held event comes, and it comes then', { timeout: 180_000 }, async () => {
      const worker = await scriptSession(relay, 'Digest worker', 'reply ok');
      await finish(relay, worker.id, worker.messageId);
      const { watcher, result } = await subscribeWatcher(relay, worker.id, { events: ['turn_end'], digest_minutes: 1 });
      const sent = await relay.api('POST', `/api/v1/sessions/${worker.id}/messages`, { text: 'reply Built.' });
      await finish(relay, worker.id, sent.body.message_id);

      const listed = await heldOne(relay, watcher, result.subscription.id);
      const due = Date.parse(listed.nextDeliveryAt as string);
      // To two seconds before the release: what is left runs on the clock's own; coming 30 s late would take 30 more.
      await relay.jumpTo(new Date(due - 2_000));

      const [event] = await eventMessages(relay, watcher, 1, 60_000);
      expect(event!.text.split('\n')).toEqual([HEADER, `[relay event] session "Digest worker" (${worker.id.slice(0, 4)}…): turn_end (done) "Built."`]);
      const at = new Date((event!.created_at ?? event!.createdAt) as string).getTime();
      expect(at).toBeGreaterThanOrEqual(due);
      // The planner, the outbox and the session's consumer take a few relay seconds; a 30-second window would take 30.
      expect(at - due).toBeLessThan(30_000);
    });
  });
});

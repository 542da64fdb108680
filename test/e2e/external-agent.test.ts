// Issue 14, items 1 and 2 end to end: an external session (an MCP client the user runs, here the official SDK
// client) whose relay_tool call is its running turn. A card it needs shows in the Inbox naming it, the call waits
// with progress notifications until the user decides through the user API (Allow goes on, Deny refuses), a wait
// that runs out leaves the card and the same call again picks up the decision. What would wake a hosted agent (a
// wake-up, the answer to its ask, a schedule firing) is written into its conversation, announced on its open GET
// stream and in the `pending` note of its results, and read with read_session or wait on itself.
//
// The relay clock runs 10x and the Longest wait is 120 s; what waits on it (a card wait running out, the 30-second
// window before a wake-up goes, a schedule's minute) is skipped with jumps of the relay's clock (time-skipping).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';
import { RelayUser } from '../harness/relay-user.ts';
import { skipCoalescingWindow } from '../harness/coalescing.ts';
import { until } from '../harness/until.ts';

let relay: Relay;
let user: RelayUser;
let me: { id: string; token: string };
let agent: Client;
/** The logging notifications the agent's client heard (its GET stream and its calls without a progressToken). */
const heard: unknown[] = [];

beforeAll(async () => {
  // Progress every half second of real time rather than every 5 s: the first tests wait for one.
  relay = await startRelay({ name: 'desk', env: { RELAY_CLOCK: `${new Date().toISOString()}@10x`, CARD_PROGRESS_INTERVAL_MS: '500' } });
  user = new RelayUser(relay, relay.userToken);
  expect((await user.api('PATCH', '/api/v1/settings', { max_wait_seconds: 120 })).status).toBe(200);
  me = await relay.createExternalSession('My editor');
  agent = await relay.connectAgent(me.token);
  agent.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    heard.push(notification.params.data);
  });
});

afterAll(async () => {
  await agent?.close();
  await user?.close();
  await relay?.stop();
});

/** Calls relay_tool; the result's JSON. `progress` collects the progress notifications of the call. */
async function call(args: Record<string, unknown>, progress?: Progress[]): Promise<any> {
  const result = await agent.callTool({ name: 'relay_tool', arguments: args }, undefined, {
    timeout: 120_000,
    ...(progress ? { onprogress: (p: Progress) => progress.push(p), resetTimeoutOnProgress: true } : {}),
  });
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

const decide = (cardId: string, decision: 'allow' | 'deny') => user.api('POST', `/api/v1/cards/${cardId}`, { decision });
const cardsOfMine = async () => (await user.api('GET', `/api/v1/cards?session=${me.id}`)).body.cards as any[];

let worker: string;

describe('a call that needs a card is the running turn of the external session', () => {
  it('create_session raises its card in the Inbox naming the session, waits with progress, and goes on after Allow', async () => {
    const progress: Progress[] = [];
    const created = call({ action: 'create_session', relay: 'this', provider: 'script', title: 'Worker', text: 'reply pong', wait_seconds: 60 }, progress);
    const card = await user.pendingCard(me.id);
    expect(card).toMatchObject({ kind: 'approval', status: 'pending', title: 'Start a session on desk: "Worker"' });
    expect(card.lines).toContain(`Asked by the external session "My editor" (${me.id.slice(0, 8)}), an MCP client you run.`);
    const inbox = await user.api('GET', '/api/v1/cards?pending=1');
    expect(inbox.body.cards.map((c: { id: string }) => c.id)).toContain(card.id);
    await until('a progress notification', () => progress.find((p) => p.message?.includes(`waiting for your Allow on card ${card.id} in the Inbox`)));

    expect((await decide(card.id, 'allow')).status).toBe(200);
    const result = await created;
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, status: 'done', reply: { text: 'pong' } });
    worker = result.session;
  });

  it('Deny refuses the call with REMOTE_RELAY_PERMISSION and nothing is subscribed; a client without progressToken hears logging notifications', async () => {
    const subscribing = call({ action: 'subscribe', sessions: [worker], events: ['turn_end'] });
    const card = await user.pendingCard(me.id);
    expect(card.title).toMatch(/watch/i);
    await until('a logging notification', () =>
      heard.find((data) => typeof data === 'string' && data.includes(`waiting for your Allow on card ${card.id} in the Inbox`)),
    );
    expect((await decide(card.id, 'deny')).status).toBe(200);
    expect(await subscribing).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION' });
    expect((await call({ action: 'list_subscriptions' })).subscriptions).toEqual([]);
  });

  it('while its call waits on a card, another client sees the conversation working (list_sessions, read_session, the user API); idle again once it ended', async () => {
    const observerSession = await relay.createExternalSession('Observer');
    const observer = await relay.connectAgent(observerSession.token);
    const stateSeenBy = async () => {
      const listed = JSON.parse(
        ((await observer.callTool({ name: 'relay_tool', arguments: { action: 'list_sessions', relay: 'this' } })).content as { text: string }[])[0]!.text,
      );
      const read = JSON.parse(
        (
          (await observer.callTool({ name: 'relay_tool', arguments: { action: 'read_session', relay: 'this', session: me.id } })).content as { text: string }[]
        )[0]!.text,
      );
      const api = (await user.api('GET', '/api/v1/sessions')).body.sessions as { id: string; state: string }[];
      return {
        listed: listed.sessions.find((s: { id: string }) => s.id === me.id)?.state,
        read: read.session.state,
        api: api.find((s) => s.id === me.id)?.state,
      };
    };
    try {
      expect(await stateSeenBy()).toEqual({ listed: 'idle', read: 'idle', api: 'idle' });
      const watching = call({ action: 'subscribe', sessions: [worker], events: ['turn_end'] });
      const card = await user.pendingCard(me.id);
      // A call is marked once it has been in flight for a second (a quicker one is never seen working).
      const seen = await until('the session shown working', async () => {
        const states = await stateSeenBy();
        return states.listed === 'running_turn' ? states : undefined;
      });
      expect(seen).toEqual({ listed: 'running_turn', read: 'running_turn', api: 'running_turn' });
      expect((await decide(card.id, 'deny')).status).toBe(200);
      expect(await watching).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION' });
      expect(await stateSeenBy()).toEqual({ listed: 'idle', read: 'idle', api: 'idle' });
    } finally {
      await observer.close();
    }
  });

  it('a wait that runs out leaves the card; the same call made again picks up its decision, with no second card', async () => {
    const args = { action: 'subscribe', sessions: [worker], events: ['turn_end'] };
    const before = (await cardsOfMine()).length;
    const waiting = call(args, []);
    // The card is up, its wait under way: jump past the Longest wait rather than wait 12 s for it (a jump that came
    // before the wait started would only cost those 12 s).
    const raised = await user.pendingCard(me.id);
    await relay.jumpTo(new Date(relay.now().getTime() + 121_000));
    const timedOut = await waiting;
    expect(timedOut, JSON.stringify(timedOut)).toMatchObject({ ok: false, code: 'REMOTE_RELAY_PERMISSION', cardStatus: 'pending' });
    expect(timedOut.error).toContain('make the same call again');
    const card = await user.pendingCard(me.id);
    expect(card.id).toBe(timedOut.card);
    expect(card.id).toBe(raised.id);

    expect((await decide(card.id, 'allow')).status).toBe(200);
    const retried = await call(args);
    expect(retried, JSON.stringify(retried)).toMatchObject({ ok: true });
    expect(await cardsOfMine()).toHaveLength(before + 1);
    expect((await call({ action: 'list_subscriptions' })).subscriptions).toEqual([
      expect.objectContaining({ sessions: [expect.objectContaining({ id: worker })] }),
    ]);
  });

  it('the once-per-conversation cards stay once: a second session and a second watch go without one', async () => {
    const before = (await cardsOfMine()).length;
    const second = await call({ action: 'create_session', relay: 'this', provider: 'script', title: 'Second worker', text: 'reply two', wait_seconds: 60 });
    expect(second, JSON.stringify(second)).toMatchObject({ ok: true, status: 'done', reply: { text: 'two' } });
    const watched = await call({ action: 'subscribe', sessions: [second.session], events: ['error'] });
    expect(watched, JSON.stringify(watched)).toMatchObject({ ok: true });
    expect(await cardsOfMine()).toHaveLength(before);
  });
});

describe('what would wake a hosted agent reaches the external one', () => {
  it('a wake-up is announced on the GET stream, carried as `pending` on every result, and read with read_session on itself', async () => {
    const since = relay.now();
    await user.finish(worker, await user.say(worker, 'reply second round'));
    await skipCoalescingWindow(relay, me.id, since);
    const announced = (await until('a notification on the GET stream', () => heard.find((data: any) => data?.pending?.count >= 1))) as any;
    expect(announced.pending.first[0]).toContain('turn_end');

    const listed = await call({ action: 'list_sessions', relay: 'this' });
    expect(listed).toMatchObject({ ok: true, pending: { count: 1, first: [expect.stringContaining('turn_end')] } });
    expect(listed.pending.read).toContain(`read_session on session ${me.id}`);

    const read = await call({ action: 'read_session', relay: 'this', session: me.id });
    expect(read.messages.filter((m: { role: string }) => m.role === 'event').at(-1).text).toContain('second round');
    expect(read.pending).toBeUndefined();
    expect((await call({ action: 'list_relays' })).pending).toBeUndefined();
  });

  it("an ask's answer shows as `pending`, and wait on its own conversation reads it", async () => {
    const asked = await call({ action: 'ask', question: 'Ship tonight?', options: ['Tonight', 'Wait'] });
    expect(asked).toMatchObject({ ok: true, status: 'pending' });
    expect((await user.api('POST', `/api/v1/asks/${asked.question_id}`, { decision: 'answer', choice: 'Wait' })).status).toBe(200);

    const noted = await until('the pending note', async () => {
      const listed = await call({ action: 'list_questions' });
      return listed.pending ? listed : undefined;
    });
    expect(noted.pending.first[0]).toContain('question_answered');

    const waited = await call({ action: 'wait', relay: 'this', session: me.id, wait_seconds: 60 });
    expect(waited, JSON.stringify(waited)).toMatchObject({ ok: true, arrived: 1 });
    expect(waited.messages[0]).toMatchObject({ role: 'event', text: expect.stringContaining(asked.question_id) });
    expect(waited.pending).toBeUndefined();
  });

  it('a schedule into its own conversation fires into it, every time: each firing waits for the agent to read it', async () => {
    const set = await call({ action: 'schedule', title: 'Check in', text: 'Look at the build.', every_minutes: 1 });
    expect(set, JSON.stringify(set)).toMatchObject({ ok: true, schedule: { everyMinutes: 1 } });
    // A second firing shows the first counted as taken (no pile-up skip). The clock jumps to each firing's minute.
    let nextFireAt: string = set.schedule.nextFireAt;
    for (const round of [1, 2]) {
      await relay.jumpTo(nextFireAt);
      const waited = await call({ action: 'wait', relay: 'this', session: me.id, wait_seconds: 120 });
      expect(waited, `round ${round}: ${JSON.stringify(waited)}`).toMatchObject({ ok: true, arrived: 1 });
      expect(waited.messages[0]).toMatchObject({ role: 'schedule', text: expect.stringContaining('Look at the build.') });
      nextFireAt = (await call({ action: 'list_schedules' })).schedules[0].nextFireAt;
    }
    const listed = await call({ action: 'list_schedules' });
    expect(listed.schedules).toEqual([expect.objectContaining({ id: set.schedule_id })]);
    expect(listed.schedules[0].firedCount).toBeGreaterThanOrEqual(2);
    expect(listed.schedules[0].skippedCount ?? 0).toBe(0);
    expect(await call({ action: 'unschedule', schedule_id: set.schedule_id })).toMatchObject({ ok: true });
    // A firing that came before the unschedule is read here, so the next test waits for its own message.
    await call({ action: 'read_session', relay: 'this', session: me.id });
  });

  it('wait on its own conversation returns as soon as a message arrives', async () => {
    const waiting = call({ action: 'wait', relay: 'this', session: me.id, wait_seconds: 120 }, []);
    const since = relay.now();
    await user.finish(worker, await user.say(worker, 'reply third round'));
    await skipCoalescingWindow(relay, me.id, since);
    const waited = await waiting;
    expect(waited, JSON.stringify(waited)).toMatchObject({ ok: true, arrived: 1 });
    expect(waited.messages[0].text).toContain('third round');
  });
});

// Issue 39, item 2 (decisions.md, Waiting for the person): a held call is a turn for every rule that counts turns.
describe("an external session's call in flight counts as a turn for all_idle and stalled", () => {
  /** The computed events (all_idle, stalled) stored for a watcher, by the subscription service. */
  async function computedFor(watcherId: string): Promise<{ kind: string; occurredAt: string; session?: { id: string } }[]> {
    const db = new pg.Client({ connectionString: relay.databaseUrls.subscription });
    await db.connect();
    try {
      const { rows } = await db.query<{ event: any }>(
        "SELECT event FROM watcher_events WHERE watcher_session_id = $1 AND (source_event_id LIKE 'all_idle:%' OR source_event_id LIKE 'stalled:%') ORDER BY received_at",
        [watcherId],
      );
      return rows.map((row) => row.event);
    } finally {
      await db.end();
    }
  }

  it("while a Terminal session's call waits on a card, all_idle stays quiet though the other watched session went idle, stalled comes, and all_idle follows the call's end", async () => {
    const terminal = await relay.createExternalSession('Terminal');
    const terminalAgent = await relay.connectAgent(terminal.token);
    const busy = await user.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Build', text: 'reply built' });
    expect(busy.status, JSON.stringify(busy.body)).toBe(201);
    const build: string = busy.body.session.id;
    await user.finish(build, busy.body.message_id);
    try {
      // The watcher (this file's external session, its watch cards allowed before) watches both.
      const subscribed = await call({ action: 'subscribe', sessions: [terminal.id, build], events: ['all_idle', 'stalled'], stalled_minutes: 1 });
      expect(subscribed, JSON.stringify(subscribed)).toMatchObject({ ok: true });

      // The Terminal's first create_session needs the owner's Allow: its call is held while the card waits.
      const holding = terminalAgent.callTool(
        { name: 'relay_tool', arguments: { action: 'create_session', relay: 'this', provider: 'script', title: 'Held', text: 'reply held' } },
        undefined,
        { timeout: 120_000 },
      );
      const card = await user.pendingCard(terminal.id);
      await until('the Terminal shown working', async () => {
        const sessions = (await user.api('GET', '/api/v1/sessions')).body.sessions as { id: string; state: string }[];
        return sessions.find((s) => s.id === terminal.id)?.state === 'running_turn' ? true : undefined;
      });
      const heldSince = relay.now().getTime();

      // Build runs a turn and ends it while the call is held: the watched sessions are not all idle.
      await user.finish(build, await user.say(build, 'reply done again'));
      // A minute of relay time into the held call, with no sign of life: stalled, named after the Terminal.
      const stalled = await until('stalled for the held call', async () => {
        const events = await computedFor(me.id);
        return events.find((event) => event.kind === 'stalled') ? events : undefined;
      });
      expect(
        stalled.filter((event) => event.kind === 'all_idle'),
        JSON.stringify(stalled),
      ).toEqual([]);
      expect(stalled.find((event) => event.kind === 'stalled')).toMatchObject({ session: { id: terminal.id } });

      // The call ends (Deny): now all are idle, once, at the end of the call.
      const denying = relay.now().getTime();
      expect((await decide(card.id, 'deny')).status).toBe(200);
      await holding;
      const idle = await until('all_idle after the call', async () => {
        const events = (await computedFor(me.id)).filter((event) => event.kind === 'all_idle');
        return events.length > 0 ? events : undefined;
      });
      expect(idle).toHaveLength(1);
      // Not before the call ended, which was after the person decided (the relay clock runs fast: the moment the test
      // saw the hold is not when it began).
      expect(Date.parse(idle[0]!.occurredAt)).toBeGreaterThanOrEqual(denying);
      expect(Date.parse(idle[0]!.occurredAt)).toBeGreaterThan(heldSince);
    } finally {
      await terminalAgent.close();
    }
  });
});

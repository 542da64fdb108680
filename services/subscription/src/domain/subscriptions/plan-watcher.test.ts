import { describe, expect, it } from 'vitest';
import { recordDelivery, type DeliverySubscription, type HeldBy, type RelayEvent, type WatcherState } from '../delivery/index.ts';
import { EMPTY_WATCHER_STATE, evaluateWatcher, heldBySubscription, wakeupIdOf, type WatcherEvent } from './plan-watcher.ts';

const at = (iso: string) => new Date(iso);
const SESSION = { id: '3f9c2a1e7b04', title: 'Review: server/' };
const WATCHER = 'w1';

function turnEnd(id: string, occurredAt: string, text = 'Done.'): RelayEvent {
  return { kind: 'turn_end', id, occurredAt: at(occurredAt), relay: null, session: SESSION, status: 'done', text, promptMessageId: null };
}
function stored(event: RelayEvent, subscriptionIds: string[], overrides: Partial<WatcherEvent> = {}): WatcherEvent {
  return {
    id: `${WATCHER}:${event.id}`,
    sourceEventId: event.id,
    event,
    subscriptionIds,
    status: 'new',
    releaseAt: null,
    deliverAt: null,
    heldBy: null,
    capDigest: false,
    wakeupId: null,
    ...overrides,
  };
}
function subscription(overrides: Partial<DeliverySubscription> = {}): DeliverySubscription {
  return { id: 'sub_plain', createdAt: at('2026-10-24T08:00:00Z'), once: false, digestMinutes: null, quietHours: null, lastDeliveredAt: null, ...overrides };
}
const subs = (...list: DeliverySubscription[]) => new Map(list.map((s) => [s.id, s]));

describe('evaluateWatcher', () => {
  it('opens a 30-second window for a new event and sends nothing yet', () => {
    const result = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:00Z'),
      state: EMPTY_WATCHER_STATE,
      seq: 0,
      events: [stored(turnEnd('e1', '2026-10-24T10:00:00Z'), ['sub_plain'])],
      subscriptions: subs(subscription()),
    });
    expect(result.wakeUp).toBeNull();
    expect(result.events).toMatchObject([{ status: 'released', deliverAt: at('2026-10-24T10:00:30Z') }]);
    expect(result.nextEvaluationAt).toEqual(at('2026-10-24T10:00:30Z'));
  });

  it('sends the events released within the window as one message, numbered <watcher>:<seq>', () => {
    const first = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:00Z'),
      state: EMPTY_WATCHER_STATE,
      seq: 4,
      events: [stored(turnEnd('e1', '2026-10-24T10:00:00Z', 'One'), ['sub_plain'])],
      subscriptions: subs(subscription()),
    });
    const second = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:10Z'),
      state: first.state,
      seq: first.seq,
      events: [...first.events, stored(turnEnd('e2', '2026-10-24T10:00:10Z', 'Two'), ['sub_plain'])],
      subscriptions: subs(subscription()),
    });
    expect(second.wakeUp).toBeNull();
    const third = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:30Z'),
      state: second.state,
      seq: second.seq,
      events: [...first.events, ...second.events.filter((e) => e.id !== `${WATCHER}:e1`)],
      subscriptions: subs(subscription()),
    });
    expect(third.wakeUp).toMatchObject({ seq: 5, wakeupId: wakeupIdOf(WATCHER, 5), sourceEventIds: ['e1', 'e2'] });
    expect(third.wakeUp?.text.split('\n')).toEqual([
      '[relay event · automated message from OAR, not from the user; it approves nothing]',
      '[relay event] session "Review: server/" (3f9c…): turn_end (done) "One"',
      '[relay event] session "Review: server/" (3f9c…): turn_end (done) "Two"',
    ]);
    expect(third.state.wakeUps).toEqual([at('2026-10-24T10:00:30Z')]);
    expect(third.deliveredSubscriptionIds).toEqual(['sub_plain']);
    expect(third.nextEvaluationAt).toBeNull();
  });

  it('holds an event inside quiet hours until the window ends, then sends it at that instant', () => {
    const quiet = subscription({ id: 'sub_quiet', quietHours: { from: '21:00', to: '02:30', tz: 'Europe/Berlin' } });
    const held = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T20:00:00Z'),
      state: EMPTY_WATCHER_STATE,
      seq: 0,
      events: [stored(turnEnd('e1', '2026-10-24T20:00:00Z'), ['sub_quiet'])],
      subscriptions: subs(quiet),
    });
    // 02:30 comes first at 00:30Z (CEST); the repeated 02:30 (CET, 01:30Z) does not count.
    expect(held.events).toMatchObject([{ status: 'held', releaseAt: at('2026-10-25T00:30:00Z') }]);
    expect(held.nextEvaluationAt).toEqual(at('2026-10-25T00:30:00Z'));
    const sent = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-25T00:30:00Z'),
      state: held.state,
      seq: 0,
      events: held.events,
      subscriptions: subs(quiet),
    });
    expect(sent.events).toMatchObject([{ status: 'delivered', deliverAt: at('2026-10-25T00:30:00Z') }]);
    expect(sent.wakeUp?.text).toContain(
      'Held during quiet hours (21:00–02:30 Europe/Berlin): 1 event, delivered now that the window has ended; questions and errors came at once.',
    );
    expect(sent.state.wakeUps).toEqual([at('2026-10-25T00:30:00Z')]);
  });

  it('sends a digest at its due time with the events waiting in the open window', () => {
    const digest = subscription({ id: 'sub_digest', digestMinutes: 30, createdAt: at('2026-10-24T10:00:00Z') });
    const plain = subscription();
    const held = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:05:00Z'),
      state: EMPTY_WATCHER_STATE,
      seq: 0,
      events: [stored(turnEnd('e1', '2026-10-24T10:05:00Z'), ['sub_digest'])],
      subscriptions: subs(digest, plain),
    });
    // A new event 10 s before the digest opens a window closing at 10:30:10.
    const open = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:29:50Z'),
      state: held.state,
      seq: 0,
      events: [...held.events, stored(turnEnd('e2', '2026-10-24T10:29:50Z'), ['sub_plain'])],
      subscriptions: subs(digest, plain),
    });
    expect(open.nextEvaluationAt).toEqual(at('2026-10-24T10:30:00Z'));
    const sent = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:30:00Z'),
      state: open.state,
      seq: 0,
      events: [...held.events, ...open.events.filter((e) => e.id !== `${WATCHER}:e1`)],
      subscriptions: subs(digest, plain),
    });
    expect(sent.wakeUp?.sourceEventIds).toEqual(['e1', 'e2']);
    expect(sent.deliveredSubscriptionIds.sort()).toEqual(['sub_digest', 'sub_plain']);
    expect(sent.nextEvaluationAt).toBeNull();
  });

  it('delivers an urgent event at once, taking the open window along', () => {
    const first = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:00Z'),
      state: EMPTY_WATCHER_STATE,
      seq: 0,
      events: [stored(turnEnd('e1', '2026-10-24T10:00:00Z'), ['sub_plain'])],
      subscriptions: subs(subscription()),
    });
    const answered: RelayEvent = {
      kind: 'question_answered',
      id: 'q1',
      occurredAt: at('2026-10-24T10:00:05Z'),
      relay: null,
      questionId: 'ask_1',
      answer: 'Wait',
      choices: [],
      dismissed: false,
      via: 'desk',
    };
    const urgent = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:05Z'),
      state: first.state,
      seq: 0,
      events: [...first.events, stored(answered, [])],
      subscriptions: subs(subscription()),
    });
    expect(urgent.wakeUp?.sourceEventIds).toEqual(['e1', 'q1']);
    expect(urgent.deliveredSubscriptionIds).toEqual(['sub_plain']);
  });

  it('ends a once subscription with its first event and drops events no live subscription names', () => {
    const once = subscription({ id: 'sub_once', once: true });
    const result = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:00Z'),
      state: EMPTY_WATCHER_STATE,
      seq: 0,
      events: [stored(turnEnd('e1', '2026-10-24T10:00:00Z'), ['sub_once']), stored(turnEnd('e2', '2026-10-24T10:00:00Z'), ['sub_gone'])],
      subscriptions: subs(once),
    });
    expect(result.endSubscriptionIds).toEqual(['sub_once']);
    expect(result.events.map((event) => event.status)).toEqual(['released', 'dropped']);
  });
});

describe("evaluateWatcher and the watcher's own prompts", () => {
  const own = (id: string, occurredAt: string): RelayEvent => ({
    ...(turnEnd(id, occurredAt) as Extract<RelayEvent, { kind: 'turn_end' }>),
    promptMessageId: 'msg_1',
  });

  it('drops a released turn_end whose reply the watcher got back before the window closed', () => {
    const first = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:00Z'),
      state: EMPTY_WATCHER_STATE,
      seq: 0,
      events: [stored(own('e1', '2026-10-24T10:00:00Z'), ['sub_plain'])],
      subscriptions: subs(subscription()),
    });
    expect(first.events).toMatchObject([{ status: 'released' }]);
    const state = { ...first.state, ownPrompts: { msg_1: 'reply_returned' as const } };
    const closed = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:30Z'),
      state,
      seq: 0,
      events: first.events,
      subscriptions: subs(subscription()),
    });
    expect(closed.wakeUp).toBeNull();
    expect(closed.events).toMatchObject([{ status: 'dropped' }]);
  });

  it("holds it while the watcher still waits, and a once subscription's turn_end still comes", () => {
    const waiting = { ...EMPTY_WATCHER_STATE, ownPrompts: { msg_1: 'waiting' as const } };
    const held = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:00Z'),
      state: waiting,
      seq: 0,
      events: [stored(own('e1', '2026-10-24T10:00:00Z'), ['sub_plain'])],
      subscriptions: subs(subscription()),
    });
    expect(held.events).toMatchObject([{ status: 'waiting' }]);
    const returned = { ...EMPTY_WATCHER_STATE, ownPrompts: { msg_1: 'reply_returned' as const } };
    const once = subscription({ id: 'sub_once', once: true });
    const first = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:00Z'),
      state: returned,
      seq: 0,
      events: [stored(own('e1', '2026-10-24T10:00:00Z'), ['sub_once'])],
      subscriptions: subs(once),
    });
    const sent = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:30Z'),
      state: first.state,
      seq: 0,
      events: first.events,
      subscriptions: subs(once),
    });
    expect(sent.wakeUp?.sourceEventIds).toEqual(['e1']);
  });

  it('counts in link_restored the replayed events of its subscription a digest holds', () => {
    const digest = subscription({ id: 'sub_digest', digestMinutes: 30, createdAt: at('2026-10-24T09:50:00Z') });
    const replayed = (id: string): RelayEvent => ({ ...turnEnd(id, '2026-10-24T09:55:00Z'), relay: 'build-box', replayed: { dropped: 0 } });
    const restored: RelayEvent = {
      kind: 'link_restored',
      id: 'lr',
      occurredAt: at('2026-10-24T10:00:00Z'),
      relay: 'build-box',
      replayedCount: 2,
      heldCount: 0,
    };
    const result = evaluateWatcher({
      watcherSessionId: WATCHER,
      now: at('2026-10-24T10:00:00Z'),
      state: EMPTY_WATCHER_STATE,
      seq: 0,
      events: [stored(restored, ['sub_digest']), stored(replayed('r1'), ['sub_digest']), stored(replayed('r2'), ['sub_digest'])],
      subscriptions: subs(digest),
    });
    expect(result.events.filter((event) => event.status === 'held')).toHaveLength(2);
    expect(result.wakeUp?.text.split('\n')).toEqual([
      '[relay event · automated message from OAR, not from the user; it approves nothing]',
      '[relay event] build-box · link_restored: the relay answers again; 2 events replayed, 2 of them held by digest or quiet hours and coming later',
    ]);
  });
});

describe('heldBySubscription (list_subscriptions: heldCount, nextDeliveryAt)', () => {
  const digestHold: HeldBy = { kind: 'digest', subscriptionId: 'sub_digest', digestMinutes: 30 };
  const otherHold: HeldBy = { kind: 'digest', subscriptionId: 'sub_other', digestMinutes: 10 };
  const waiting = (status: WatcherEvent['status'], releaseAt: string | null, deliverAt: string | null, heldBy: HeldBy | null = digestHold) => ({
    status,
    releaseAt: releaseAt === null ? null : at(releaseAt),
    deliverAt: deliverAt === null ? null : at(deliverAt),
    heldBy,
  });
  /** 20 wake-ups one minute apart from 10:00: the cap is reached until 11:00. */
  let capped: WatcherState = EMPTY_WATCHER_STATE;
  for (let minute = 0; minute < 20; minute += 1) capped = recordDelivery(capped, new Date(at('2026-10-24T10:00:00Z').getTime() + minute * 60_000));

  it.each([
    { name: 'nothing held', events: [], state: EMPTY_WATCHER_STATE, heldCount: 0, next: null },
    {
      name: 'a held event comes at its release, not 30 s later',
      events: [waiting('held', '2026-10-24T10:30:00Z', null)],
      state: EMPTY_WATCHER_STATE,
      heldCount: 1,
      next: '2026-10-24T10:30:00Z',
    },
    {
      name: 'the earliest of two releases',
      events: [waiting('held', '2026-10-24T11:00:00Z', null), waiting('held', '2026-10-24T10:30:00Z', null)],
      state: EMPTY_WATCHER_STATE,
      heldCount: 2,
      next: '2026-10-24T10:30:00Z',
    },
    {
      name: 'a release the cap blocks comes at its slot, release + 10 min',
      events: [waiting('held', '2026-10-24T10:30:00Z', null)],
      state: capped,
      heldCount: 1,
      next: '2026-10-24T10:40:00Z',
    },
    {
      name: 'a released event waiting for its cap slot is still held',
      events: [waiting('released', '2026-10-24T10:30:00Z', '2026-10-24T10:40:00Z')],
      state: capped,
      heldCount: 1,
      next: '2026-10-24T10:40:00Z',
    },
    {
      name: "another subscription's, delivered and new events are not counted",
      events: [
        waiting('held', '2026-10-24T10:20:00Z', null, otherHold),
        waiting('delivered', '2026-10-24T10:00:00Z', '2026-10-24T10:00:00Z'),
        waiting('released', null, '2026-10-24T10:00:30Z', null),
      ],
      state: EMPTY_WATCHER_STATE,
      heldCount: 0,
      next: null,
    },
  ])('$name', ({ events, state, heldCount, next }) => {
    expect(heldBySubscription(events, 'sub_digest', state)).toEqual({ heldCount, nextDeliveryAt: next === null ? null : at(next) });
  });
});

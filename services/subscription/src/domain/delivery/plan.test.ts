import { describe, expect, it } from 'vitest';
import type { DeliverySubscription, QuietHours, RelayEvent, ReleasePlan, WatcherState } from './model.ts';
import { heldDeliveryAt, isUrgent, planDelivery, planRelease, recordDelivery } from './plan.ts';

const at = (iso: string) => new Date(iso);
const SESSION = { id: '3f9c2a1e7b04', title: 'Review: server/' };
const BERLIN_NIGHT: QuietHours = { from: '23:00', to: '06:00', tz: 'Europe/Berlin' };

const idle: WatcherState = { wakeUps: [], windowClosesAt: null, capSlotAt: null, ownPrompts: {} };

function subscription(overrides: Partial<DeliverySubscription> = {}): DeliverySubscription {
  return { id: 'sub_plain', createdAt: at('2026-06-10T08:00:00Z'), once: false, digestMinutes: null, quietHours: null, lastDeliveredAt: null, ...overrides };
}
const plain = subscription();
const digest30 = subscription({ id: 'sub_digest', digestMinutes: 30 });
const quiet = subscription({ id: 'sub_quiet', quietHours: BERLIN_NIGHT });

function turnEnd(occurredAt: string, promptMessageId: string | null = null): RelayEvent {
  return {
    kind: 'turn_end',
    id: `ev_${occurredAt}`,
    occurredAt: at(occurredAt),
    relay: null,
    session: SESSION,
    status: 'done',
    text: 'Done.',
    promptMessageId,
  };
}
function taskFailed(occurredAt: string): RelayEvent {
  return {
    kind: 'task_failed',
    id: `ev_${occurredAt}`,
    occurredAt: at(occurredAt),
    relay: null,
    session: SESSION,
    taskId: 'b7k2m9q4',
    description: 'npm test',
    exitCode: 1,
  };
}
function urgentEvent(kind: 'question_asked' | 'question_answered' | 'error', occurredAt: string): RelayEvent {
  const base = { id: `ev_${kind}`, occurredAt: at(occurredAt), relay: null };
  if (kind === 'error') return { ...base, kind, session: SESSION, message: 'The build failed.' };
  if (kind === 'question_asked') return { ...base, kind, session: SESSION, questionId: 'q_7d2', question: 'Merge?' };
  return { ...base, kind, questionId: 'ask_7d2', answer: 'Wait', choices: ['Wait'], dismissed: false, via: 'desk' };
}
function heartbeat(occurredAt: string, subscriptionId: string): RelayEvent {
  return { kind: 'heartbeat', id: `hb_${occurredAt}`, occurredAt: at(occurredAt), relay: null, subscriptionId, sessions: [] };
}

function released(plan: ReleasePlan) {
  if (plan.action !== 'release') throw new Error(`expected a release, got ${JSON.stringify(plan)}`);
  return plan;
}
function held(plan: ReleasePlan) {
  if (plan.action !== 'hold') throw new Error(`expected a hold, got ${JSON.stringify(plan)}`);
  return plan;
}

describe('isUrgent', () => {
  it.each([
    ['question_asked', true],
    ['question_answered', true],
    ['error', true],
    ['turn_end', false],
    ['task_failed', false],
    ['stalled', false],
    ['all_idle', false],
    ['heartbeat', false],
    ['link_lost', true],
    ['link_restored', true],
    ['remote', false],
  ] as const)('%s → %s', (kind, urgent) => {
    expect(isUrgent(kind)).toBe(urgent);
  });
});

describe('planRelease: a subscription without options', () => {
  it('releases a turn_end now, into a 30-second window', () => {
    const plan = released(planRelease(turnEnd('2026-06-10T09:00:00Z'), [plain], idle, at('2026-06-10T09:00:00Z')));
    expect(plan.reasons).toEqual(['not_held']);
    expect(plan.heldBy).toBeNull();
    expect(plan.subscriptionId).toBe('sub_plain');
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-10T09:00:30Z'));
    expect(plan.delivery.reasons).toEqual(['coalescing']);
    expect(plan.delivery.watcherState.windowClosesAt).toEqual(at('2026-06-10T09:00:30Z'));
  });

  it('puts the next event within 30 seconds into the same message', () => {
    const first = released(planRelease(turnEnd('2026-06-10T09:00:00Z'), [plain], idle, at('2026-06-10T09:00:00Z')));
    const second = released(planRelease(taskFailed('2026-06-10T09:00:20Z'), [plain], first.delivery.watcherState, at('2026-06-10T09:00:20Z')));
    expect(second.delivery.deliverAt).toEqual(at('2026-06-10T09:00:30Z'));
  });

  it('opens a new window for an event after the first closed', () => {
    const first = released(planRelease(turnEnd('2026-06-10T09:00:00Z'), [plain], idle, at('2026-06-10T09:00:00Z')));
    const later = released(planRelease(taskFailed('2026-06-10T09:00:45Z'), [plain], first.delivery.watcherState, at('2026-06-10T09:00:45Z')));
    expect(later.delivery.deliverAt).toEqual(at('2026-06-10T09:01:15Z'));
  });

  it('releases a late event (replayed, or planned after a restart) at once', () => {
    const plan = released(planRelease(turnEnd('2026-06-10T07:00:00Z'), [plain], idle, at('2026-06-10T09:00:00Z')));
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-10T09:00:30Z'));
  });

  it('does not hold an event stamped after now by a paired relay whose clock runs ahead', () => {
    const plan = planRelease(turnEnd('2026-06-10T09:00:05Z'), [plain], idle, at('2026-06-10T09:00:00Z'));
    expect(released(plan).delivery.deliverAt).toEqual(at('2026-06-10T09:00:30Z'));
  });
});

describe('planRelease: urgent events', () => {
  const digestAndQuiet = subscription({ id: 'sub_both', digestMinutes: 30, quietHours: BERLIN_NIGHT });

  it.each(['question_asked', 'question_answered', 'error'] as const)('%s goes at once, inside quiet hours and before the digest', (kind) => {
    // 2026-06-10T22:00Z is 00:00 in Berlin: inside the window; the digest is not due before 08:30.
    const plan = released(planRelease(urgentEvent(kind, '2026-06-10T22:00:00Z'), [digestAndQuiet], idle, at('2026-06-10T22:00:00Z')));
    expect(plan.reasons).toEqual(['urgent']);
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-10T22:00:00Z'));
    expect(plan.delivery.reasons).toEqual(['at_once']);
  });

  it('takes whatever waits in the open window along', () => {
    const first = released(planRelease(turnEnd('2026-06-10T09:00:00Z'), [plain], idle, at('2026-06-10T09:00:00Z')));
    const plan = released(planRelease(urgentEvent('error', '2026-06-10T09:00:10Z'), [plain], first.delivery.watcherState, at('2026-06-10T09:00:10Z')));
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-10T09:00:10Z'));
    expect(plan.delivery.reasons).toEqual(['at_once', 'takes_open_window']);
    expect(plan.delivery.takesWindowClosingAt).toEqual(at('2026-06-10T09:00:30Z'));
    expect(plan.delivery.watcherState.windowClosesAt).toBeNull();
  });

  it('leaves nothing open after the flush: the next event opens a new window', () => {
    const first = released(planRelease(turnEnd('2026-06-10T09:00:00Z'), [plain], idle, at('2026-06-10T09:00:00Z')));
    const flush = released(planRelease(urgentEvent('error', '2026-06-10T09:00:10Z'), [plain], first.delivery.watcherState, at('2026-06-10T09:00:10Z')));
    const next = released(planRelease(taskFailed('2026-06-10T09:00:15Z'), [plain], flush.delivery.watcherState, at('2026-06-10T09:00:15Z')));
    expect(next.delivery.deliverAt).toEqual(at('2026-06-10T09:00:45Z'));
  });

  it('delivers question_answered with no subscription (the asking conversation needs none)', () => {
    const plan = released(planRelease(urgentEvent('question_answered', '2026-06-10T09:00:00Z'), [], idle, at('2026-06-10T09:00:00Z')));
    expect(plan.subscriptionId).toBeNull();
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-10T09:00:00Z'));
  });

  it('refuses to plan a non-urgent event without subscriptions (a bug in the caller)', () => {
    expect(() => planRelease(turnEnd('2026-06-10T09:00:00Z'), [], idle, at('2026-06-10T09:00:00Z'))).toThrow();
  });
});

describe('planRelease: digest_minutes', () => {
  it('holds the first digest until N minutes after the subscription was made', () => {
    const plan = held(planRelease(turnEnd('2026-06-10T08:10:00Z'), [digest30], idle, at('2026-06-10T08:10:00Z')));
    expect(plan.releaseAt).toEqual(at('2026-06-10T08:30:00Z'));
    expect(plan.reasons).toEqual(['digest']);
    expect(plan.heldBy).toEqual({ kind: 'digest', subscriptionId: 'sub_digest', digestMinutes: 30 });
  });

  it('holds later events until N minutes after the last delivered message', () => {
    const delivered = { ...digest30, lastDeliveredAt: at('2026-06-10T09:00:30Z') };
    const plan = held(planRelease(turnEnd('2026-06-10T09:10:00Z'), [delivered], idle, at('2026-06-10T09:10:00Z')));
    expect(plan.releaseAt).toEqual(at('2026-06-10T09:30:30Z'));
  });

  it('releases at once when N minutes have passed since the last message', () => {
    const delivered = { ...digest30, lastDeliveredAt: at('2026-06-10T09:00:00Z') };
    const plan = released(planRelease(turnEnd('2026-06-10T09:40:00Z'), [delivered], idle, at('2026-06-10T09:40:00Z')));
    expect(plan.reasons).toEqual(['not_held']);
    expect(plan.heldBy).toBeNull();
  });

  it("releases a held event when planned again at its due time, still marked as the digest's", () => {
    const plan = released(planRelease(turnEnd('2026-06-10T08:10:00Z'), [digest30], idle, at('2026-06-10T08:30:00Z')));
    expect(plan.reasons).toEqual(['digest']);
    expect(plan.heldBy).toEqual({ kind: 'digest', subscriptionId: 'sub_digest', digestMinutes: 30 });
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-10T08:30:00Z'));
    expect(plan.delivery.reasons).toEqual(['hold_ended']);
  });

  it('gives every event held for the same digest the same release time', () => {
    const times = ['08:01', '08:12', '08:29'].map(
      (minute) => held(planRelease(taskFailed(`2026-06-10T${minute}:00Z`), [digest30], idle, at(`2026-06-10T${minute}:00Z`))).releaseAt,
    );
    expect(times).toEqual([at('2026-06-10T08:30:00Z'), at('2026-06-10T08:30:00Z'), at('2026-06-10T08:30:00Z')]);
  });

  it.each(['stalled', 'all_idle'] as const)('holds %s too', (kind) => {
    const event: RelayEvent =
      kind === 'stalled'
        ? { kind, id: 'ev', occurredAt: at('2026-06-10T08:10:00Z'), relay: null, session: SESSION, minutes: 15, task: null }
        : { kind, id: 'ev', occurredAt: at('2026-06-10T08:10:00Z'), relay: null, subscriptionId: 'sub_digest', sessionCount: 2 };
    expect(planRelease(event, [digest30], idle, at('2026-06-10T08:10:00Z')).action).toBe('hold');
  });
});

describe('planRelease: quiet hours', () => {
  // Summer: Berlin is UTC+2, so 23:00–06:00 local is 21:00Z–04:00Z.
  it('holds an event inside the window until the occurrence ends', () => {
    const plan = held(planRelease(taskFailed('2026-06-10T22:00:00Z'), [quiet], idle, at('2026-06-10T22:00:00Z')));
    expect(plan.releaseAt).toEqual(at('2026-06-11T04:00:00Z'));
    expect(plan.reasons).toEqual(['quiet_hours']);
    expect(plan.heldBy).toEqual({ kind: 'quiet_hours', subscriptionId: 'sub_quiet', quietHours: BERLIN_NIGHT });
  });

  it('releases it at the end, still marked as held by quiet hours', () => {
    const plan = released(planRelease(taskFailed('2026-06-10T22:00:00Z'), [quiet], idle, at('2026-06-11T04:00:00Z')));
    expect(plan.heldBy?.kind).toBe('quiet_hours');
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-11T04:00:00Z'));
  });

  it('lets an event outside the window through', () => {
    expect(planRelease(taskFailed('2026-06-10T20:59:00Z'), [quiet], idle, at('2026-06-10T20:59:00Z')).action).toBe('release');
    expect(planRelease(taskFailed('2026-06-11T04:00:00Z'), [quiet], idle, at('2026-06-11T04:00:00Z')).action).toBe('release');
  });

  it('releases a replayed event that happened in a window already over at once, as held by it', () => {
    const plan = released(planRelease(taskFailed('2026-06-10T22:00:00Z'), [quiet], idle, at('2026-06-11T07:00:00Z')));
    expect(plan.heldBy?.kind).toBe('quiet_hours');
  });

  it('holds to the first end when to falls in the repeated hour (Berlin, 2026-10-25)', () => {
    const toInRepeat = subscription({ id: 'sub_q', quietHours: { from: '23:00', to: '02:30', tz: 'Europe/Berlin' } });
    expect(held(planRelease(taskFailed('2026-10-25T00:10:00Z'), [toInRepeat], idle, at('2026-10-25T00:10:00Z'))).releaseAt).toEqual(at('2026-10-25T00:30:00Z'));
    // 02:10 CET, the second pass: the window is not entered again.
    expect(planRelease(taskFailed('2026-10-25T01:10:00Z'), [toInRepeat], idle, at('2026-10-25T01:10:00Z')).action).toBe('release');
  });

  it('holds to the jump when to falls in the skipped hour (Berlin, 2026-03-29)', () => {
    const toInGap = subscription({ id: 'sub_q', quietHours: { from: '22:00', to: '02:30', tz: 'Europe/Berlin' } });
    expect(held(planRelease(taskFailed('2026-03-29T00:30:00Z'), [toInGap], idle, at('2026-03-29T00:30:00Z'))).releaseAt).toEqual(at('2026-03-29T01:00:00Z'));
  });

  describe('the known limit: from inside the repeated hour (Berlin 02:30–06:00 on 2026-10-25)', () => {
    const fromInRepeat = subscription({ id: 'sub_q', quietHours: { from: '02:30', to: '06:00', tz: 'Europe/Berlin' } });

    it('holds an event of the first pass until the occurrence ends', () => {
      const plan = held(planRelease(taskFailed('2026-10-25T00:40:00Z'), [fromInRepeat], idle, at('2026-10-25T00:40:00Z')));
      expect(plan.releaseAt).toEqual(at('2026-10-25T05:00:00Z'));
    });

    it('lets an event of the second pass before from through', () => {
      expect(planRelease(taskFailed('2026-10-25T01:10:00Z'), [fromInRepeat], idle, at('2026-10-25T01:10:00Z')).action).toBe('release');
    });

    it('does not release the events already held during those second-pass minutes', () => {
      const plan = held(planRelease(taskFailed('2026-10-25T00:40:00Z'), [fromInRepeat], idle, at('2026-10-25T01:10:00Z')));
      expect(plan.releaseAt).toEqual(at('2026-10-25T05:00:00Z'));
    });
  });

  it('drops a heartbeat inside the window: none is made there', () => {
    expect(planRelease(heartbeat('2026-06-10T22:00:00Z', 'sub_quiet'), [quiet], idle, at('2026-06-10T22:00:00Z'))).toEqual({
      action: 'drop',
      reason: 'heartbeat_in_quiet_hours',
      endsSubscriptionIds: [],
    });
  });

  it('releases a heartbeat outside the window', () => {
    expect(planRelease(heartbeat('2026-06-10T12:00:00Z', 'sub_quiet'), [quiet], idle, at('2026-06-10T12:00:00Z')).action).toBe('release');
  });
});

describe('planRelease: quiet hours and digest together', () => {
  it('moves a digest due inside the window to its end', () => {
    // Digest due 21:20Z (23:20 in Berlin, inside); the event itself came before the window.
    const sub = subscription({ id: 'sub_both', digestMinutes: 30, quietHours: BERLIN_NIGHT, lastDeliveredAt: at('2026-06-10T20:50:00Z') });
    const plan = held(planRelease(taskFailed('2026-06-10T20:55:00Z'), [sub], idle, at('2026-06-10T20:55:00Z')));
    expect(plan.releaseAt).toEqual(at('2026-06-11T04:00:00Z'));
    expect(plan.reasons).toEqual(['digest', 'digest_moved_to_quiet_end']);
    expect(plan.heldBy).toEqual({ kind: 'quiet_hours', subscriptionId: 'sub_both', quietHours: BERLIN_NIGHT });
  });

  it('holds an event of the window past its end when the digest is due later', () => {
    const sub = subscription({ id: 'sub_both', digestMinutes: 30, quietHours: BERLIN_NIGHT, createdAt: at('2026-06-11T03:45:00Z') });
    const plan = held(planRelease(taskFailed('2026-06-11T03:50:00Z'), [sub], idle, at('2026-06-11T03:50:00Z')));
    expect(plan.releaseAt).toEqual(at('2026-06-11T04:15:00Z'));
    expect(plan.reasons).toEqual(['quiet_hours', 'digest']);
    expect(plan.heldBy?.kind).toBe('digest');
  });

  it("keeps an event of the window to the window's end when the digest was due before it", () => {
    const sub = subscription({ id: 'sub_both', digestMinutes: 30, quietHours: BERLIN_NIGHT, lastDeliveredAt: at('2026-06-10T20:00:00Z') });
    const plan = held(planRelease(taskFailed('2026-06-10T23:00:00Z'), [sub], idle, at('2026-06-10T23:00:00Z')));
    expect(plan.releaseAt).toEqual(at('2026-06-11T04:00:00Z'));
    expect(plan.reasons).toEqual(['quiet_hours']);
  });
});

describe('planRelease: several subscriptions', () => {
  it('lets the event go at once when one of them has no options', () => {
    const plan = released(planRelease(taskFailed('2026-06-10T08:10:00Z'), [digest30, plain], idle, at('2026-06-10T08:10:00Z')));
    expect(plan.subscriptionId).toBe('sub_plain');
    expect(plan.heldBy).toBeNull();
  });

  it('holds it until the earliest of their release times', () => {
    const digest10 = subscription({ id: 'sub_digest10', digestMinutes: 10 });
    const plan = held(planRelease(taskFailed('2026-06-10T08:05:00Z'), [digest30, digest10], idle, at('2026-06-10T08:05:00Z')));
    expect(plan.releaseAt).toEqual(at('2026-06-10T08:10:00Z'));
    expect(plan.subscriptionId).toBe('sub_digest10');
  });

  it('prefers a digest due inside quiet hours of another subscription', () => {
    const digest60 = subscription({ id: 'sub_digest60', digestMinutes: 60, createdAt: at('2026-06-10T21:30:00Z') });
    const plan = held(planRelease(taskFailed('2026-06-10T22:00:00Z'), [quiet, digest60], idle, at('2026-06-10T22:00:00Z')));
    expect(plan.releaseAt).toEqual(at('2026-06-10T22:30:00Z'));
    expect(plan.subscriptionId).toBe('sub_digest60');
  });
});

describe("planRelease: no echo of the watcher's own prompts", () => {
  const watcher = (state: 'waiting' | 'reply_returned' | 'not_waiting'): WatcherState => ({ ...idle, ownPrompts: { msg_b41e: state } });

  it('holds the turn_end while the watcher still waits for that turn', () => {
    expect(planRelease(turnEnd('2026-06-10T09:00:00Z', 'msg_b41e'), [plain], watcher('waiting'), at('2026-06-10T09:00:00Z'))).toEqual({
      action: 'hold_while_waiting',
      reason: 'echo_waiting',
      endsSubscriptionIds: [],
    });
  });

  it('drops it when the call or a later wait returned the finished reply', () => {
    expect(planRelease(turnEnd('2026-06-10T09:00:00Z', 'msg_b41e'), [plain], watcher('reply_returned'), at('2026-06-10T09:00:00Z'))).toEqual({
      action: 'drop',
      reason: 'echo',
      endsSubscriptionIds: [],
    });
  });

  it('releases it when the watcher did not wait (wait_seconds: 0 and no wait)', () => {
    const plan = released(planRelease(turnEnd('2026-06-10T09:00:00Z', 'msg_b41e'), [plain], watcher('not_waiting'), at('2026-06-10T09:00:00Z')));
    expect(plan.reasons).toEqual(['own_prompt_not_waited', 'not_held']);
  });

  it("releases the turn_end of a prompt that is not the watcher's", () => {
    expect(planRelease(turnEnd('2026-06-10T09:00:00Z', 'msg_other'), [plain], watcher('reply_returned'), at('2026-06-10T09:00:00Z')).action).toBe('release');
  });

  it.each(['error', 'question_asked'] as const)("still delivers the turn's %s", (kind) => {
    expect(planRelease(urgentEvent(kind, '2026-06-10T09:00:00Z'), [plain], watcher('waiting'), at('2026-06-10T09:00:00Z')).action).toBe('release');
  });

  it('releases a turn_end that ends a once subscription, which then ends', () => {
    const once = subscription({ id: 'sub_once', once: true });
    const plan = released(planRelease(turnEnd('2026-06-10T09:00:00Z', 'msg_b41e'), [once], watcher('reply_returned'), at('2026-06-10T09:00:00Z')));
    expect(plan.reasons).toEqual(['ends_once', 'not_held']);
    expect(plan.endsSubscriptionIds).toEqual(['sub_once']);
  });

  it('lets the once subscription release what another subscription would hold for the wait', () => {
    const once = subscription({ id: 'sub_once', once: true });
    const plan = released(planRelease(turnEnd('2026-06-10T09:00:00Z', 'msg_b41e'), [plain, once], watcher('waiting'), at('2026-06-10T09:00:00Z')));
    expect(plan.subscriptionId).toBe('sub_once');
  });

  it('keeps the digest for a turn_end it did not wait for', () => {
    const plan = held(planRelease(turnEnd('2026-06-10T08:10:00Z', 'msg_b41e'), [digest30], watcher('not_waiting'), at('2026-06-10T08:10:00Z')));
    expect(plan.reasons).toEqual(['own_prompt_not_waited', 'digest']);
  });
});

describe('planRelease: once with digest and quiet hours', () => {
  it('ends the subscription at once and holds its event until quiet hours end', () => {
    const onceQuiet = subscription({ id: 'sub_once', once: true, quietHours: BERLIN_NIGHT });
    const plan = held(planRelease(taskFailed('2026-06-10T22:00:00Z'), [onceQuiet], idle, at('2026-06-10T22:00:00Z')));
    expect(plan.endsSubscriptionIds).toEqual(['sub_once']);
    expect(plan.releaseAt).toEqual(at('2026-06-11T04:00:00Z'));
  });

  it("holds the once turn_end of the watcher's own prompt by quiet hours, not by the wait", () => {
    const onceQuiet = subscription({ id: 'sub_once', once: true, quietHours: BERLIN_NIGHT });
    const waiting: WatcherState = { ...idle, ownPrompts: { msg_b41e: 'waiting' } };
    const plan = held(planRelease(turnEnd('2026-06-10T22:00:00Z', 'msg_b41e'), [onceQuiet], waiting, at('2026-06-10T22:00:00Z')));
    expect(plan.reasons).toEqual(['ends_once', 'quiet_hours']);
    expect(plan.releaseAt).toEqual(at('2026-06-11T04:00:00Z'));
  });

  it('ends the subscription at once and holds its event for the digest', () => {
    const onceDigest = subscription({ id: 'sub_once', once: true, digestMinutes: 30 });
    const plan = held(planRelease(taskFailed('2026-06-10T08:10:00Z'), [onceDigest], idle, at('2026-06-10T08:10:00Z')));
    expect(plan.endsSubscriptionIds).toEqual(['sub_once']);
    expect(plan.releaseAt).toEqual(at('2026-06-10T08:30:00Z'));
  });
});

/** A watcher that had 20 wake-ups one minute apart from 09:00 to 09:19. */
function capped(): WatcherState {
  let state = idle;
  for (let minute = 0; minute < 20; minute += 1) state = recordDelivery(state, new Date(at('2026-06-10T09:00:00Z').getTime() + minute * 60_000));
  return state;
}

describe('planRelease: the hourly cap', () => {
  it('defers a non-urgent message to the first cap slot, T + 10 min', () => {
    const plan = released(planRelease(taskFailed('2026-06-10T09:30:00Z'), [plain], capped(), at('2026-06-10T09:30:00Z')));
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-10T09:40:30Z'));
    expect(plan.delivery.reasons).toEqual(['coalescing', 'hourly_cap']);
    expect(plan.delivery.capDigest).toBe(true);
    expect(plan.delivery.watcherState.capSlotAt).toEqual(at('2026-06-10T09:40:30Z'));
  });

  it('gathers what is blocked until then into the same slot', () => {
    const first = released(planRelease(taskFailed('2026-06-10T09:30:00Z'), [plain], capped(), at('2026-06-10T09:30:00Z')));
    const second = released(planRelease(turnEnd('2026-06-10T09:36:00Z'), [plain], first.delivery.watcherState, at('2026-06-10T09:36:00Z')));
    expect(second.delivery.deliverAt).toEqual(at('2026-06-10T09:40:30Z'));
  });

  it('keeps a slot every 10 min while the count is still at 20', () => {
    const first = released(planRelease(taskFailed('2026-06-10T09:30:00Z'), [plain], capped(), at('2026-06-10T09:30:00Z')));
    const afterSlot = recordDelivery(first.delivery.watcherState, first.delivery.deliverAt);
    const next = released(planRelease(turnEnd('2026-06-10T09:45:00Z'), [plain], afterSlot, at('2026-06-10T09:45:00Z')));
    expect(next.delivery.deliverAt).toEqual(at('2026-06-10T09:50:30Z'));
  });

  it('lets messages go as usual once the rolling count is below 20', () => {
    const plan = released(planRelease(taskFailed('2026-06-10T10:05:00Z'), [plain], capped(), at('2026-06-10T10:05:00Z')));
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-10T10:05:30Z'));
    expect(plan.delivery.capDigest).toBe(false);
  });

  it.each(['question_asked', 'question_answered', 'error'] as const)('never defers %s', (kind) => {
    const plan = released(planRelease(urgentEvent(kind, '2026-06-10T09:30:00Z'), [plain], capped(), at('2026-06-10T09:30:00Z')));
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-10T09:30:00Z'));
  });

  it('counts every injected message: urgent rows keep the cap reached', () => {
    let state = idle;
    for (let minute = 0; minute < 20; minute += 1) {
      const now = new Date(at('2026-06-10T09:00:00Z').getTime() + minute * 60_000);
      const plan = released(planRelease(urgentEvent('error', now.toISOString()), [plain], state, now));
      state = recordDelivery(plan.delivery.watcherState, plan.delivery.deliverAt);
    }
    const blocked = released(planRelease(taskFailed('2026-06-10T09:20:00Z'), [plain], state, at('2026-06-10T09:20:00Z')));
    expect(blocked.delivery.deliverAt).toEqual(at('2026-06-10T09:30:30Z'));
  });

  it('defers a digest released while the cap is reached to the slot (the two digests meet)', () => {
    const plan = released(
      planRelease(taskFailed('2026-06-10T09:10:00Z'), [{ ...digest30, createdAt: at('2026-06-10T09:00:00Z') }], capped(), at('2026-06-10T09:30:00Z')),
    );
    expect(plan.heldBy?.kind).toBe('digest');
    expect(plan.delivery.capDigest).toBe(true);
    expect(plan.delivery.deliverAt).toEqual(at('2026-06-10T09:40:00Z'));
  });
});

describe('planRelease: a held event goes at its release, not 30 s later', () => {
  const digestFrom8 = subscription({ id: 'sub_digest', digestMinutes: 30 });
  /** A watcher whose window, opened by a new event at `openedAt`, is still open. */
  const windowOpenedAt = (openedAt: string) => released(planRelease(turnEnd(openedAt), [plain], idle, at(openedAt))).delivery.watcherState;
  it.each([
    {
      name: 'a digest at its due time',
      event: taskFailed('2026-06-10T08:10:00Z'),
      sub: digestFrom8,
      watcher: idle,
      now: '2026-06-10T08:30:00Z',
      deliverAt: '2026-06-10T08:30:00Z',
      reasons: ['hold_ended'],
      takes: null,
    },
    {
      name: "quiet hours' end",
      event: taskFailed('2026-06-10T22:00:00Z'),
      sub: quiet,
      watcher: idle,
      now: '2026-06-11T04:00:00Z',
      deliverAt: '2026-06-11T04:00:00Z',
      reasons: ['hold_ended'],
      takes: null,
    },
    {
      name: 'a release planned late goes when planned',
      event: taskFailed('2026-06-10T08:10:00Z'),
      sub: digestFrom8,
      watcher: idle,
      now: '2026-06-10T08:30:05Z',
      deliverAt: '2026-06-10T08:30:05Z',
      reasons: ['hold_ended'],
      takes: null,
    },
    {
      name: 'a release takes the events that arrived in the 30 s before',
      event: taskFailed('2026-06-10T22:00:00Z'),
      sub: quiet,
      watcher: windowOpenedAt('2026-06-11T03:59:50Z'),
      now: '2026-06-11T04:00:00Z',
      deliverAt: '2026-06-11T04:00:00Z',
      reasons: ['hold_ended', 'takes_open_window'],
      takes: '2026-06-11T04:00:20Z',
    },
    {
      name: "the cap's slot is the release + 10 min",
      event: taskFailed('2026-06-10T09:10:00Z'),
      sub: { ...digestFrom8, createdAt: at('2026-06-10T09:00:00Z') },
      watcher: capped(),
      now: '2026-06-10T09:30:00Z',
      deliverAt: '2026-06-10T09:40:00Z',
      reasons: ['hold_ended', 'hourly_cap'],
      takes: null,
    },
  ])('$name', ({ event, sub, watcher, now, deliverAt, reasons, takes }) => {
    const plan = released(planRelease(event, [sub], watcher, at(now)));
    expect(plan.delivery.deliverAt).toEqual(at(deliverAt));
    expect(plan.delivery.reasons).toEqual(reasons);
    expect(plan.delivery.takesWindowClosingAt).toEqual(takes === null ? null : at(takes));
  });

  it('leaves no window open after it went: a new event then opens its own', () => {
    const release = released(planRelease(taskFailed('2026-06-10T22:00:00Z'), [quiet], windowOpenedAt('2026-06-11T03:59:50Z'), at('2026-06-11T04:00:00Z')));
    const next = released(planRelease(turnEnd('2026-06-11T04:00:10Z'), [plain], release.delivery.watcherState, at('2026-06-11T04:00:10Z')));
    expect(next.delivery.deliverAt).toEqual(at('2026-06-11T04:00:40Z'));
  });

  it('blocked by the cap, leaves the open window to close on its own', () => {
    const opened = released(planRelease(turnEnd('2026-06-10T09:29:50Z'), [plain], capped(), at('2026-06-10T09:29:50Z'))).delivery.watcherState;
    const plan = released(
      planRelease(taskFailed('2026-06-10T09:10:00Z'), [{ ...digestFrom8, createdAt: at('2026-06-10T09:00:00Z') }], opened, at('2026-06-10T09:30:00Z')),
    );
    expect(plan.delivery.takesWindowClosingAt).toBeNull();
    expect(plan.delivery.watcherState.windowClosesAt).toEqual(opened.windowClosesAt);
  });
});

describe('heldDeliveryAt', () => {
  it.each([
    ['the release itself while the cap is not reached then', idle, '2026-06-10T09:30:00Z', '2026-06-10T09:30:00Z'],
    ['the cap slot, release + 10 min, when the cap is reached then', capped(), '2026-06-10T09:30:00Z', '2026-06-10T09:40:00Z'],
    ['the release once the rolling hour has let wake-ups go', capped(), '2026-06-10T10:05:00Z', '2026-06-10T10:05:00Z'],
  ] as const)('%s', (_name, watcher, releaseAt, expected) => {
    expect(heldDeliveryAt(at(releaseAt), watcher)).toEqual(at(expected));
  });
});

describe('planDelivery', () => {
  it('uses shorter timings when a test configures them', () => {
    const plan = planDelivery(idle, at('2026-06-10T09:00:00Z'), 'new', { coalesceMs: 1_000, capWakeUps: 2, capWindowMs: 60_000, capSlotMs: 5_000 });
    expect(plan.deliverAt).toEqual(at('2026-06-10T09:00:01Z'));
  });

  it('does not record the wake-up itself: recordDelivery does, when the message went', () => {
    const plan = planDelivery(idle, at('2026-06-10T09:00:00Z'), 'urgent');
    expect(plan.watcherState.wakeUps).toEqual([]);
    expect(recordDelivery(plan.watcherState, plan.deliverAt).wakeUps).toEqual([at('2026-06-10T09:00:00Z')]);
  });
});

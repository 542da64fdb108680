import { describe, expect, it } from 'vitest';
import type { PendingQuestion } from '../../src/domain/turns/turn.ts';
import { endTurnAs, providerCannotRunError, RELAY_STOPPED_ERROR } from '../../src/domain/turns/turn-rules.ts';
import { claimNextTurn } from '../../src/app/turns/claim-next-turn.ts';
import { endTurn, sweepExpiredLeases } from '../../src/app/turns/end-turn.ts';
import { raiseQuestion, settleQuestion } from '../../src/app/turns/turn-questions.ts';
import type { ClaimedTurn, EndedTurn, QueuedTurn, TurnDeps, TurnEvent, TurnTransaction } from '../../src/app/turns/turn-store.ts';
import { fixedCrypto } from '../fixed-crypto.ts';

const NOW = new Date('2026-12-03T10:00:00.000Z');
const RUNNER = 'runner-1';

/** A turn in the fake store: whose runner holds it, whether its lease ran out, and its resume point if it has one. */
type FakeTurn = {
  sessionId: string;
  userId: string;
  messageId: string;
  runnerId: string;
  expired: boolean;
  questions: PendingQuestion[];
  resume?: { step: number };
};

/**
 * The TurnTransaction port in memory: it keeps the statements in the order the use case ran them (so the lock order
 * shows), what they wrote, and the events.
 */
class FakeTurnStore implements TurnTransaction {
  readonly statements: string[] = [];
  readonly events: TurnEvent[] = [];
  readonly messages: { sessionId: string; role: string; text: string; model: string }[] = [];
  readonly sessions = new Map<string, { state: string; newMessages: number }>();
  readonly turns = new Map<string, FakeTurn>();
  queued: QueuedTurn | undefined;
  /** Turns of the session still queued, running or waiting after the one that ends. */
  otherUnfinished = 0;

  readonly deps: TurnDeps = {
    ids: fixedCrypto(),
    store: {
      transaction: (work) => work(this),
      expiredLeases: async () => [...this.turns].filter(([, turn]) => turn.expired).map(([turnId, turn]) => ({ turnId, sessionId: turn.sessionId })),
    },
  };

  async claimCandidate(held: readonly string[]): Promise<QueuedTurn | undefined> {
    this.statements.push('claimCandidate');
    return this.queued !== undefined && !held.includes(this.queued.session.provider) ? this.queued : undefined;
  }
  async markRunning(turnId: string): Promise<void> {
    this.statements.push(`markRunning ${turnId}`);
  }
  async markClaimedEnded(turnId: string, _runnerId: string, ending: { status: string; error: string }): Promise<void> {
    this.statements.push(`markClaimedEnded ${turnId} ${ending.status} ${ending.error}`);
  }
  async sessionOfTurn(turnId: string): Promise<string | undefined> {
    this.statements.push('sessionOfTurn');
    return this.turns.get(turnId)?.sessionId;
  }
  async lockSession(sessionId: string): Promise<string | undefined> {
    this.statements.push(`lockSession ${sessionId}`);
    return [...this.turns.values()].find((turn) => turn.sessionId === sessionId)?.userId;
  }
  async endRunningTurn(turnId: string, runnerId: string): Promise<EndedTurn | undefined> {
    this.statements.push(`endRunningTurn ${turnId}`);
    const turn = this.turns.get(turnId);
    return turn?.runnerId === runnerId ? this.#end(turnId) : undefined;
  }
  async endExpiredTurn(turnId: string): Promise<EndedTurn | undefined> {
    this.statements.push(`endExpiredTurn ${turnId}`);
    const turn = this.turns.get(turnId);
    return turn?.expired && turn.resume === undefined ? this.#end(turnId) : undefined;
  }
  async takeOverTurn(turnId: string, runnerId: string, now: Date): Promise<ClaimedTurn | undefined> {
    this.statements.push(`takeOverTurn ${turnId}`);
    const turn = this.turns.get(turnId);
    if (!turn?.expired || turn.resume === undefined) return undefined;
    this.turns.set(turnId, { ...turn, runnerId, expired: false });
    return { turnId, messageId: turn.messageId, text: 'hello', mode: 'agent', startedAt: now, session: queued().session, resume: turn.resume };
  }
  #end(turnId: string): EndedTurn {
    const turn = this.turns.get(turnId)!;
    this.turns.delete(turnId);
    return { turnId, sessionId: turn.sessionId, messageId: turn.messageId, senderSessionId: null };
  }
  async countUnfinishedTurns(): Promise<number> {
    this.statements.push('countUnfinishedTurns');
    return this.otherUnfinished;
  }
  async updateSession(sessionId: string, change: { state: string; newMessages: number }): Promise<void> {
    this.statements.push(`updateSession ${sessionId}`);
    this.sessions.set(sessionId, { state: change.state, newMessages: change.newMessages });
  }
  async appendMessage(message: { sessionId: string; role: string; text: string; model: string }): Promise<void> {
    this.statements.push('appendMessage');
    this.messages.push({ sessionId: message.sessionId, role: message.role, text: message.text, model: message.model });
  }
  async lockRunningTurn(turnId: string, runnerId: string) {
    this.statements.push(`lockRunningTurn ${turnId}`);
    const turn = this.turns.get(turnId);
    return turn?.runnerId === runnerId ? { sessionId: turn.sessionId, userId: turn.userId, pendingQuestions: turn.questions } : undefined;
  }
  async findRunningTurn(): Promise<undefined> {
    throw new Error('not used here');
  }
  async setQuestions(turnId: string, questions: readonly PendingQuestion[], status: string): Promise<void> {
    this.statements.push(`setQuestions ${turnId} ${status}`);
    this.turns.get(turnId)!.questions = [...questions];
  }
  async recordEvent(event: TurnEvent): Promise<void> {
    this.statements.push(`recordEvent ${event.type}`);
    this.events.push(event);
  }
}

function queued(fields: Partial<QueuedTurn> = {}): QueuedTurn {
  return {
    turnId: 't-1',
    messageId: 'm-1',
    text: 'hello',
    mode: 'agent',
    stopRequested: false,
    senderSessionId: 's-sender',
    traceParent: null,
    sessionArchived: false,
    session: { id: 's-1', userId: 'u-1', title: 'T', provider: 'script', model: 'm', effort: '', mode: 'agent', cwd: '/w' },
    ...fields,
  };
}

const claim = (store: FakeTurnStore, canRun = true, held: string[] = []) =>
  claimNextTurn(store.deps, { runnerId: RUNNER, now: NOW, canRun: () => canRun, leaseMs: 30_000, held });

describe('claimNextTurn', () => {
  it('runs the queued turn under a lease: running, the session at work, turn_started', async () => {
    const store = new FakeTurnStore();
    store.queued = queued();
    const result = await claim(store);
    expect(result).toMatchObject({ kind: 'run', claimed: { turnId: 't-1', messageId: 'm-1', text: 'hello', startedAt: NOW, session: { id: 's-1' } } });
    expect(store.statements).toEqual(['claimCandidate', 'markRunning t-1', 'updateSession s-1', 'recordEvent turn_started']);
    expect(store.sessions.get('s-1')).toEqual({ state: 'running_turn', newMessages: 0 });
    expect(store.events[0]).toMatchObject({ type: 'turn_started', sessionId: 's-1', userId: 'u-1', turnId: 't-1', messageId: 'm-1', occurredAt: NOW });
  });

  it('ends a turn stopped before it started at once, and the session goes idle', async () => {
    const store = new FakeTurnStore();
    store.queued = queued({ stopRequested: true });
    expect(await claim(store)).toEqual({ kind: 'ended', turnId: 't-1' });
    expect(store.statements).toEqual([
      'claimCandidate',
      'markClaimedEnded t-1 stopped ',
      'countUnfinishedTurns',
      'updateSession s-1',
      'recordEvent turn_ended',
    ]);
    expect(store.sessions.get('s-1')).toEqual({ state: 'idle', newMessages: 0 });
    expect(store.events[0]).toMatchObject({ type: 'turn_ended', status: 'stopped', text: '', senderSessionId: 's-sender' });
  });

  it('ends a turn of a provider this relay cannot run as an error naming it', async () => {
    const store = new FakeTurnStore();
    store.queued = queued();
    expect(await claim(store, false)).toEqual({ kind: 'ended', turnId: 't-1' });
    expect(store.events[0]).toMatchObject({ type: 'turn_ended', status: 'error', text: providerCannotRunError('script') });
  });

  it('claims nothing when no turn is claimable, or its provider is held', async () => {
    const store = new FakeTurnStore();
    expect(await claim(store)).toBeUndefined();
    store.queued = queued();
    expect(await claim(store, true, ['script'])).toBeUndefined();
    expect(store.events).toEqual([]);
  });
});

describe('endTurn', () => {
  const running = (store: FakeTurnStore, turnId = 't-1', fields: Partial<FakeTurn> = {}) =>
    store.turns.set(turnId, { sessionId: 's-1', userId: 'u-1', messageId: `m-${turnId}`, runnerId: RUNNER, expired: false, questions: [], ...fields });

  it('locks the session before the turn, stores the reply as a message and announces the start of it', async () => {
    const store = new FakeTurnStore();
    running(store);
    store.otherUnfinished = 1;
    const reply = 'x'.repeat(600);
    expect(await endTurn(store.deps, 't-1', RUNNER, endTurnAs({ kind: 'replied', text: reply, model: 'model-a' }), NOW)).toBe(true);
    expect(store.statements).toEqual([
      'sessionOfTurn',
      'lockSession s-1',
      'endRunningTurn t-1',
      'appendMessage',
      'countUnfinishedTurns',
      'updateSession s-1',
      'recordEvent turn_ended',
    ]);
    expect(store.messages).toEqual([{ sessionId: 's-1', role: 'assistant', text: reply, model: 'model-a' }]);
    // Another turn is queued: the session stays at work.
    expect(store.sessions.get('s-1')).toEqual({ state: 'running_turn', newMessages: 1 });
    expect(store.events[0]).toMatchObject({ type: 'turn_ended', status: 'done', text: 'x'.repeat(500), messageId: 'm-t-1', senderSessionId: null });
  });

  it('writes nothing when the turn is another runner’s, or gone', async () => {
    const store = new FakeTurnStore();
    running(store, 't-1', { runnerId: 'runner-2' });
    expect(await endTurn(store.deps, 't-1', RUNNER, endTurnAs({ kind: 'stopped' }), NOW)).toBe(false);
    expect(await endTurn(store.deps, 't-404', RUNNER, endTurnAs({ kind: 'stopped' }), NOW)).toBe(false);
    expect(store.events).toEqual([]);
    expect(store.sessions.size).toBe(0);
  });

  it('ends the turns whose lease ran out as "the relay stopped", except the caller’s own', async () => {
    const store = new FakeTurnStore();
    running(store, 't-dead', { expired: true, runnerId: 'runner-gone' });
    running(store, 't-mine', { expired: true });
    expect(await sweepExpiredLeases(store.deps, NOW, new Set(['t-mine']))).toEqual({ ended: ['t-dead'], takenOver: [] });
    expect(store.statements.slice(0, 2)).toEqual(['lockSession s-1', 'endExpiredTurn t-dead']);
    expect(store.events).toMatchObject([{ type: 'turn_ended', turnId: 't-dead', status: 'error', text: RELAY_STOPPED_ERROR }]);
    expect(store.turns.has('t-mine')).toBe(true);
  });

  it('takes over a turn with a resume point while there is room, and leaves it to another replica when there is none', async () => {
    const store = new FakeTurnStore();
    running(store, 't-handed', { expired: true, runnerId: 'runner-gone', resume: { step: 2 } });
    running(store, 't-plain', { expired: true, runnerId: 'runner-gone' });
    const full = await sweepExpiredLeases(store.deps, NOW, new Set(), { runnerId: RUNNER, leaseUntil: NOW, room: () => false });
    expect(full).toEqual({ ended: ['t-plain'], takenOver: [] });
    expect(store.turns.get('t-handed')).toMatchObject({ runnerId: 'runner-gone', expired: true });

    const swept = await sweepExpiredLeases(store.deps, NOW, new Set(), { runnerId: RUNNER, leaseUntil: NOW, room: () => true });
    expect(swept).toEqual({ ended: [], takenOver: [expect.objectContaining({ turnId: 't-handed', resume: { step: 2 } })] });
    expect(store.statements.slice(-2)).toEqual(['lockSession s-1', 'takeOverTurn t-handed']);
    expect(store.turns.get('t-handed')).toMatchObject({ runnerId: RUNNER });
    // Taken over, it goes on: no turn_ended for it.
    expect(store.events.map((event) => event.type === 'turn_ended' && event.turnId)).toEqual(['t-plain']);
  });
});

describe('raiseQuestion and settleQuestion', () => {
  const card: PendingQuestion = { id: 'card-1', kind: 'ask_user', question: 'Ship?', options: ['yes', 'no'] };

  it('an ask_user card makes the turn wait, with question_asked; settling it lets the turn run again', async () => {
    const store = new FakeTurnStore();
    store.turns.set('t-1', { sessionId: 's-1', userId: 'u-1', messageId: 'm-1', runnerId: RUNNER, expired: false, questions: [] });
    await raiseQuestion(store.deps, 't-1', RUNNER, card, NOW);
    expect(store.turns.get('t-1')!.questions).toEqual([card]);
    expect(store.events).toMatchObject([{ type: 'question_asked', sessionId: 's-1', userId: 'u-1', question: card, occurredAt: NOW }]);
    await settleQuestion(store.deps, 't-1', RUNNER, 'card-1');
    expect(store.statements).toEqual([
      'lockRunningTurn t-1',
      'setQuestions t-1 waiting_for_answer',
      'recordEvent question_asked',
      'lockRunningTurn t-1',
      'setQuestions t-1 running',
    ]);
  });

  it('does nothing to a turn that is not this runner’s', async () => {
    const store = new FakeTurnStore();
    store.turns.set('t-1', { sessionId: 's-1', userId: 'u-1', messageId: 'm-1', runnerId: 'runner-2', expired: false, questions: [] });
    await raiseQuestion(store.deps, 't-1', RUNNER, card, NOW);
    expect(store.turns.get('t-1')!.questions).toEqual([]);
    expect(store.events).toEqual([]);
  });
});
